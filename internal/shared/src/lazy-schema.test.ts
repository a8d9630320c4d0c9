import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazySchema } from './lazy-schema.js';

describe('lazySchema', () => {
  it('builds the schema on its first use, once', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds++;
      return z.object({ name: z.string() });
    });
    expect(builds).toBe(0);
    expect(schema.parse({ name: 'a' })).toEqual({ name: 'a' });
    expect(schema.safeParse({ name: 1 }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it('composes, extends and reports issues as the schema itself', () => {
    const part = lazySchema(() => z.object({ id: z.string().min(1) }));
    const list = lazySchema(() => z.object({ parts: z.array(part).optional() }));
    const extended = lazySchema(() => part.extend({ size: z.number() }));
    expect(list.parse({ parts: [{ id: 'x' }] })).toEqual({ parts: [{ id: 'x' }] });
    expect(list.safeParse({ parts: [{ id: '' }] }).error?.issues[0]?.path).toEqual(['parts', 0, 'id']);
    expect(Object.keys(extended.shape)).toEqual(['id', 'size']);
    expect(part instanceof z.ZodObject).toBe(true);
    expect('_zod' in part).toBe(true);
    expect(z.toJSONSchema(list)).toMatchObject({ properties: { parts: { type: 'array' } } });
  });

  it('lists, describes, defines and deletes the properties of the schema', () => {
    const built = z.object({ id: z.string() });
    const schema = lazySchema(() => built);
    expect(Object.keys(schema)).toEqual(Object.keys(built));
    expect({ ...schema }).toEqual({ ...built });
    expect(Object.getOwnPropertyDescriptor(schema, '_zod')?.value).toBe(built._zod);
    Object.defineProperty(schema, 'tag', { value: 'x', configurable: true });
    expect((schema as unknown as { tag: string }).tag).toBe('x');
    expect(delete (schema as unknown as { tag?: string }).tag).toBe(true);
    expect('tag' in built).toBe(false);
    expect(schema.meta({ description: 'an id' }).description).toBe('an id');
  });
});
