import { describe, expect, it } from 'vitest';
import { MAX_TOOL_OUTPUT_BYTES, truncateToolOutput } from './tool-output-limits.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}: ok`).join('\n');
const bytes = (text: string) => new TextEncoder().encode(text).length;
const wellFormed = (text: string) =>
  !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

describe('truncateToolOutput', () => {
  it('leaves small output alone', () => {
    expect(truncateToolOutput('hello\nworld')).toEqual({
      content: 'hello\nworld',
      truncated: false,
      originalSize: 11,
      originalLines: 2,
    });
  });

  it('keeps the tail by default, whole lines, with a notice first', () => {
    const output = `${lines(5000)}\nError: the last line matters`;
    const result = truncateToolOutput(output);
    expect(result.truncated).toBe(true);
    expect(result.content.startsWith('[Output truncated from ')).toBe(true);
    expect(result.content).toMatch(/lines omitted\]/);
    expect(result.content.endsWith('Error: the last line matters')).toBe(true);
    expect(result.content.split('\n').length).toBeLessThanOrEqual(2001);
    expect(bytes(result.content)).toBeLessThanOrEqual(MAX_TOOL_OUTPUT_BYTES);
    expect(result.originalLines).toBe(5001);
  });

  it('keeps the head, or both ends, when asked', () => {
    const output = lines(100);
    const head = truncateToolOutput(output, { maxLines: 10, direction: 'head' });
    expect(head.content.split('\n').slice(0, 10)).toEqual(output.split('\n').slice(0, 10));
    expect(head.content.split('\n').at(-1)).toBe(
      '[Output truncated from 1191 bytes to 110 bytes; 90 lines omitted]',
    );
    const both = truncateToolOutput(output, { maxLines: 10, direction: 'head-tail' });
    const parts = both.content.split('\n');
    expect(parts[0]).toBe('line 1: ok');
    expect(parts.at(-1)).toBe('line 100: ok');
    expect(parts[5]).toMatch(/^\[Output truncated .*90 lines omitted\]$/);
  });

  it('stays within maxBytes, notice included, without splitting characters', () => {
    const output = '😀'.repeat(10_000);
    const result = truncateToolOutput(output, { maxBytes: 1000 });
    expect(bytes(result.content)).toBeLessThanOrEqual(1000);
    expect(wellFormed(result.content)).toBe(true);
    expect(result.originalSize).toBe(40_000);
  });

  it('saves the full output through the injected writer and says where', async () => {
    const written = new Map<string, string>();
    const output = lines(3000);
    const result = await truncateToolOutput(output, {
      maxLines: 100,
      save: {
        dir: '/tmp/out/',
        fileName: 'bash-1.txt',
        writer: async (path, content) => void written.set(path, content),
      },
    });
    expect(result.savedPath).toBe('/tmp/out/bash-1.txt');
    expect(written.get('/tmp/out/bash-1.txt')).toBe(output);
    expect(result.content).toContain('Full output saved to /tmp/out/bash-1.txt');
    const small = await truncateToolOutput('tiny', {
      save: {
        dir: '/x',
        writer: () => {
          written.set('never', '');
        },
      },
    });
    expect(small.truncated).toBe(false);
    expect(written.has('never')).toBe(false);
  });

  it('rejects bad options naming the field', () => {
    expect(() => truncateToolOutput('x', { maxLines: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_options', path: ['maxLines'] }),
    );
    expect(() => truncateToolOutput('x', { direction: 'middle' as never })).toThrow(
      expect.objectContaining({ path: ['direction'] }),
    );
  });
});
