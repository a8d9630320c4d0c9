import { describe, expect, it } from 'vitest';
import { contextToolsFromFunctions, contextToolsSchema } from './context-tools.js';
import { createOfflineContextTools } from './offline-context-tools.js';

describe('contextToolsFromFunctions', () => {
  it('validates requests, cuts summaries to maxLength and redacts secrets', async () => {
    const tools = contextToolsFromFunctions({
      summarize: async ({ content }) => `Summary: ${content} key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123`,
      extractFacts: async () => [
        { key: 'k', value: 'token ghp_16C7e42F292c6912E7710c838347Ae178B4a', category: 'other' },
      ],
    });
    expect(tools.specificationVersion).toBe('v1');
    const summary = await tools.summarize({ content: 'hello', maxLength: 1000 });
    expect(summary).toBe('Summary: hello key=[redacted:anthropic-key]');
    expect(await tools.summarize({ content: 'hello', maxLength: 5 })).toBe('Summa');
    expect(await tools.extractFacts({ content: 'x' })).toEqual([
      { key: 'k', value: 'token [redacted:github-token]', category: 'other' },
    ]);
    await expect(tools.summarize({ content: 'x', maxLength: -1 })).rejects.toMatchObject({
      path: ['maxLength'],
    });
  });

  it('keeps only well-formed facts of the asked categories; unknown categories become other', async () => {
    const tools = contextToolsFromFunctions({
      summarize: async () => '',
      extractFacts: async () =>
        [
          { key: 'a', value: 'src/a.ts', category: 'path' },
          { key: 'b', value: 'x', category: 'colour' },
          { key: 'c' },
          null,
          { key: 'd', value: '', category: 'path' },
        ] as never,
    });
    expect(await tools.extractFacts({ content: '' })).toEqual([
      { key: 'a', value: 'src/a.ts', category: 'path' },
      { key: 'b', value: 'x', category: 'other' },
    ]);
    expect(await tools.extractFacts({ content: '', categories: ['path'] })).toEqual([
      { key: 'a', value: 'src/a.ts', category: 'path' },
    ]);
  });

  it('does not call the function when the signal is already aborted', async () => {
    let calls = 0;
    const tools = contextToolsFromFunctions({
      summarize: async () => {
        calls++;
        return '';
      },
      extractFacts: async () => [],
    });
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(tools.summarize({ content: 'x', maxLength: 5, signal: controller.signal })).rejects.toThrow(
      'cancelled',
    );
    expect(calls).toBe(0);
  });

  it('rejects missing functions and bad output', async () => {
    expect(() => contextToolsFromFunctions({ summarize: async () => '' } as never)).toThrow(/extractFacts/);
    const tools = contextToolsFromFunctions({
      summarize: async () => 3 as never,
      extractFacts: async () => 'no' as never,
    });
    await expect(tools.summarize({ content: 'x', maxLength: 5 })).rejects.toMatchObject({
      code: 'invalid_tool_output',
    });
    await expect(tools.extractFacts({ content: 'x' })).rejects.toMatchObject({ code: 'invalid_tool_output' });
  });

  it('contextToolsSchema accepts tools and rejects other values', () => {
    expect(contextToolsSchema.safeParse(createOfflineContextTools()).success).toBe(true);
    expect(contextToolsSchema.safeParse({ summarize: () => '' }).success).toBe(false);
  });
});
