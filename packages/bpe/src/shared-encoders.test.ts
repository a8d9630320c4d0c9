import { describe, expect, it } from 'vitest';
import { BpeArgumentError } from './bpe-argument-error.js';
import { BpeEncoder } from './bpe-encoder.js';
import { countTokens, encode, loadEncoder } from './shared-encoders.js';

describe('countTokens, encode and loadEncoder', () => {
  it('count with one shared encoder per encoding', async () => {
    const a = await loadEncoder('o200k_base');
    expect(await loadEncoder('o200k_base')).toBe(a);
    expect(a).toBeInstanceOf(BpeEncoder);
    expect(a.encoding).toBe('o200k_base');
    expect(await countTokens('Hello, world', 'o200k_base')).toBe(3);
    expect(await encode('Hello, world', 'o200k_base')).toEqual(a.encode('Hello, world'));
    const cl100k = await loadEncoder('cl100k_base');
    expect(cl100k).not.toBe(a);
    expect(cl100k.encoding).toBe('cl100k_base');
  });

  it('reject bad arguments with an error naming the argument', async () => {
    await expect(countTokens('x', 'p50k_base' as 'o200k_base')).rejects.toThrow(
      /^encoding: expected one of 'o200k_base', 'cl100k_base', got 'p50k_base'$/,
    );
    const error = await countTokens(42 as unknown as string, 'o200k_base').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BpeArgumentError);
    expect(error).toMatchObject({
      code: 'invalid_input',
      field: 'text',
      message: 'text: expected a string, got number',
    });
    await expect(loadEncoder(undefined as unknown as 'o200k_base')).rejects.toThrow(
      /encoding: .* got undefined/,
    );
    await expect(BpeEncoder.load('gpt2' as 'o200k_base')).rejects.toBeInstanceOf(BpeArgumentError);
    const encoder = await loadEncoder('o200k_base');
    expect(() => encoder.count(null as unknown as string)).toThrow(/text: expected a string, got null/);
    expect(() => encoder.encode({} as unknown as string)).toThrow(BpeArgumentError);
  });
});
