import { describe, expect, it } from 'vitest';
import { namespacePrefix, storeNamespaceSchema } from './store-namespace.js';

describe('store namespace', () => {
  it('is a key segment the store follows with ":"', () => {
    expect(namespacePrefix('myapp')).toBe('myapp:');
    expect(namespacePrefix('')).toBe('');
  });

  it("refuses a ':' and says what to give instead", () => {
    const result = storeNamespaceSchema().safeParse('myapp:');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain("give 'myapp', not 'myapp:'");
    expect(storeNamespaceSchema().safeParse('tenant:app').success).toBe(false);
    expect(storeNamespaceSchema().safeParse('tenant-app').success).toBe(true);
  });

  it('refuses a lone surrogate, which UTF-8 cannot store', () => {
    expect(storeNamespaceSchema().safeParse('app\ud800').success).toBe(false);
  });
});
