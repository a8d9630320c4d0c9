import { describe, expect, it } from 'vitest';
import { BUILTIN_MODELS } from './catalog-data.js';
import { ModelCatalog } from './model-catalog.js';
import { modelInfoSchema } from './model-info.js';

/** The "Context Window Registry" table of reference/001, row for row. */
const REFERENCE_001: readonly (readonly [provider: string, model: string, window: number])[] = [
  ['anthropic', '_default', 200_000],
  ['anthropic', 'claude-opus-4-20250514', 200_000],
  ['anthropic', 'claude-sonnet-4-20250514', 200_000],
  ['anthropic', 'claude-3-7-sonnet-20250219', 200_000],
  ['anthropic', 'claude-3-5-sonnet-20241022', 200_000],
  ['anthropic', 'claude-3-5-haiku-20241022', 200_000],
  ['anthropic', 'claude-3-opus-20240229', 200_000],
  ['anthropic', 'claude-3-sonnet-20240229', 200_000],
  ['anthropic', 'claude-3-haiku-20240307', 200_000],
  ['openai', '_default', 128_000],
  ['openai', 'gpt-4o', 128_000],
  ['openai', 'gpt-4o-mini', 128_000],
  ['openai', 'gpt-4-turbo', 128_000],
  ['openai', 'gpt-4', 8_192],
  ['openai', 'gpt-3.5-turbo', 16_385],
  ['openai', 'o1', 200_000],
  ['openai', 'o1-mini', 128_000],
  ['openai', 'o1-pro', 200_000],
  ['openai', 'o3', 200_000],
  ['openai', 'o3-mini', 200_000],
  ['openai', 'o4-mini', 200_000],
  ['openai', 'gpt-4.1', 1_047_576],
  ['openai', 'gpt-4.1-mini', 1_047_576],
  ['openai', 'gpt-4.1-nano', 1_047_576],
  ['openai', 'gpt-5', 1_047_576],
  ['google-ai', '_default', 1_048_576],
  ['google-ai', 'gemini-2.5-pro', 1_048_576],
  ['google-ai', 'gemini-2.5-flash', 1_048_576],
  ['google-ai', 'gemini-2.0-flash', 1_048_576],
  ['google-ai', 'gemini-1.5-pro', 2_097_152],
  ['google-ai', 'gemini-1.5-flash', 1_048_576],
  ['google-ai', 'gemini-3-flash-preview', 1_048_576],
  ['google-ai', 'gemini-3-pro-preview', 1_048_576],
  ['vertex', '_default', 1_048_576],
  ['vertex', 'gemini-2.5-pro', 1_048_576],
  ['vertex', 'gemini-2.5-flash', 1_048_576],
  ['vertex', 'gemini-2.0-flash', 1_048_576],
  ['vertex', 'gemini-1.5-pro', 2_097_152],
  ['vertex', 'gemini-1.5-flash', 1_048_576],
  ['bedrock', '_default', 200_000],
  ['bedrock', 'anthropic.claude-3-5-sonnet-20241022-v2:0', 200_000],
  ['bedrock', 'anthropic.claude-3-5-haiku-20241022-v1:0', 200_000],
  ['bedrock', 'anthropic.claude-3-opus-20240229-v1:0', 200_000],
  ['bedrock', 'anthropic.claude-3-sonnet-20240229-v1:0', 200_000],
  ['bedrock', 'anthropic.claude-3-haiku-20240307-v1:0', 200_000],
  ['bedrock', 'amazon.nova-pro-v1:0', 300_000],
  ['bedrock', 'amazon.nova-lite-v1:0', 300_000],
  ['azure', '_default', 128_000],
  ['azure', 'gpt-4o', 128_000],
  ['azure', 'gpt-4o-mini', 128_000],
  ['azure', 'gpt-4-turbo', 128_000],
  ['azure', 'gpt-4', 8_192],
  ['mistral', '_default', 128_000],
  ['mistral', 'mistral-large-latest', 128_000],
  ['mistral', 'mistral-medium-latest', 32_000],
  ['mistral', 'mistral-small-latest', 128_000],
  ['mistral', 'codestral-latest', 256_000],
  ['ollama', '_default', 128_000],
  ['litellm', '_default', 128_000],
  ['huggingface', '_default', 32_000],
  ['sagemaker', '_default', 128_000],
];

/** Deliberate corrections of reference/001 (README "Data sources" gives the evidence). */
const CORRECTIONS: Readonly<Record<string, { window: number; why: string }>> = {
  'openai/gpt-5': { window: 400_000, why: 'OpenAI documents a 400k window (128k output, 272k input cap)' },
  'mistral/mistral-medium-latest': {
    window: 128_000,
    why: 'the 32k figure is Mistral Medium 1 (retired); Medium 3 has 128k',
  },
};

const catalog = new ModelCatalog();

describe('built-in data', () => {
  it.each(BUILTIN_MODELS.map((entry, index) => [index, entry.provider, entry.model, entry] as const))(
    'entry %i (%s/%s) is valid against modelInfoSchema and cites a source',
    (_index, _provider, _model, entry) => {
      const parsed = modelInfoSchema.parse(entry);
      expect(parsed).toEqual(entry);
      expect(parsed.source?.length ?? 0).toBeGreaterThan(0);
      expect(parsed.provider).toBe(parsed.provider.trim().toLowerCase());
      expect(parsed.model).toBe(parsed.model.trim().toLowerCase());
      if (parsed.maxOutputTokens !== undefined)
        expect(parsed.maxOutputTokens).toBeLessThanOrEqual(parsed.contextWindow);
      if (parsed.maxInputTokens !== undefined)
        expect(parsed.maxInputTokens).toBeLessThan(parsed.contextWindow);
    },
  );

  it('has no duplicate provider/model pairs', () => {
    const keys = BUILTIN_MODELS.map((entry) => `${entry.provider}/${entry.model}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(BUILTIN_MODELS)).toBe(true);
  });

  it.each(REFERENCE_001)(
    'holds reference/001 row %s/%s (%i tokens) or a documented correction',
    (provider, model, window) => {
      expect(catalog.has(provider, model)).toBe(true);
      const resolved = catalog.get(provider, model);
      const correction = CORRECTIONS[`${provider}/${model}`];
      expect(resolved.contextWindow).toBe(correction?.window ?? window);
      expect(resolved.match).toBe(model === '_default' ? 'provider-default' : 'exact');
    },
  );

  it('corrects only rows of reference/001', () => {
    for (const key of Object.keys(CORRECTIONS)) {
      expect(REFERENCE_001.some(([provider, model]) => `${provider}/${model}` === key)).toBe(true);
    }
  });

  it('holds the current Claude, GPT and Gemini models asked for', () => {
    const expected: [string, string, number, number][] = [
      ['anthropic', 'claude-opus-4-1', 200_000, 32_000],
      ['anthropic', 'claude-opus-4-5', 200_000, 64_000],
      ['anthropic', 'claude-sonnet-4-5', 200_000, 64_000],
      ['anthropic', 'claude-haiku-4-5', 200_000, 64_000],
      ['anthropic', 'claude-sonnet-4', 200_000, 64_000],
      ['anthropic', 'claude-3-7-sonnet', 200_000, 64_000],
      ['anthropic', 'claude-3-5-haiku', 200_000, 8_192],
      ['anthropic', 'claude-opus-4-6', 1_000_000, 128_000],
      ['openai', 'gpt-5', 400_000, 128_000],
      ['openai', 'gpt-5-mini', 400_000, 128_000],
      ['openai', 'gpt-5-nano', 400_000, 128_000],
      ['openai', 'gpt-4.1', 1_047_576, 32_768],
      ['openai', 'gpt-4o', 128_000, 16_384],
      ['openai', 'o3', 200_000, 100_000],
      ['openai', 'o4-mini', 200_000, 100_000],
      ['openai', 'gpt-oss-120b', 131_072, 131_072],
      ['openai', 'gpt-oss-20b', 131_072, 131_072],
      ['google-ai', 'gemini-2.5-pro', 1_048_576, 65_536],
      ['google-ai', 'gemini-2.5-flash', 1_048_576, 65_536],
      ['google-ai', 'gemini-2.5-flash-lite', 1_048_576, 65_536],
      ['google-ai', 'gemini-2.0-flash', 1_048_576, 8_192],
      ['google-ai', 'gemini-3-pro-preview', 1_048_576, 65_536],
      ['google-ai', 'gemini-3-flash-preview', 1_048_576, 65_536],
    ];
    for (const [provider, model, window, output] of expected) {
      expect(catalog.get(provider, model), `${provider}/${model}`).toMatchObject({
        contextWindow: window,
        maxOutputTokens: output,
        match: 'exact',
      });
    }
  });

  it('gives the older GPT variants their own windows, not those of the ids they start with', () => {
    const expected: [string, number, string][] = [
      ['gpt-3.5-turbo-instruct', 4_096, 'cl100k_base'],
      ['gpt-3.5-turbo-0613', 4_096, 'cl100k_base'],
      ['gpt-3.5-turbo-1106', 16_385, 'cl100k_base'],
      ['gpt-4-32k-0613', 32_768, 'cl100k_base'],
      ['gpt-4-0613', 8_192, 'cl100k_base'],
      ['gpt-4-vision-preview', 128_000, 'cl100k_base'],
      ['text-embedding-3-small', 8_191, 'cl100k_base'],
      ['davinci-002', 16_384, 'cl100k_base'],
    ];
    for (const [model, window, encoding] of expected)
      expect(catalog.get('openai', model), model).toMatchObject({
        contextWindow: window,
        tokenizer: { encoding },
      });
    const azure = [
      ['gpt-35-turbo-0613', 4_096],
      ['gpt-35-turbo-instruct-0914', 4_097],
      ['gpt-4-32k-0613', 32_768],
    ] as const;
    for (const [model, window] of azure)
      expect(catalog.get('azure', model), model).toMatchObject({
        contextWindow: window,
        tokenizer: { encoding: 'cl100k_base' },
      });
  });

  it('follows the tokenizer rules', () => {
    for (const info of catalog.list()) {
      const label = `${info.provider}/${info.model}`;
      const { tokenizer } = info;
      if (info.provider === 'anthropic') {
        expect(tokenizer, label).toEqual({ strategy: 'count_api', api: 'anthropic' });
      } else if (
        (info.provider === 'google-ai' || info.provider === 'vertex') &&
        !info.model.startsWith('claude')
      ) {
        expect(tokenizer, label).toEqual({ strategy: 'count_api', api: 'gemini' });
      } else if (info.provider === 'openai' || info.provider === 'azure') {
        const legacy =
          /^(gpt-(4|3\.5|35)(-turbo|-\d{4}|-32k|-vision|$)|text-embedding-|(davinci|babbage)-002)/.test(
            info.model,
          );
        expect(tokenizer, label).toEqual({
          strategy: 'tiktoken',
          encoding: legacy ? 'cl100k_base' : 'o200k_base',
        });
      } else {
        expect(tokenizer, label).toEqual({ strategy: 'heuristic' });
      }
    }
  });
});
