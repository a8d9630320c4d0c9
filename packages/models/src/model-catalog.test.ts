import { CtxGuardError, InvalidInputError, InvalidOptionsError } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { BUILTIN_MODELS } from './catalog-data.js';
import {
  createModelCatalog,
  getAvailableInputTokens,
  getContextWindow,
  ModelCatalog,
  PROVIDER_DEFAULT_MODEL,
} from './model-catalog.js';
import type { ModelInfoInput } from './model-info.js';

const catalog = new ModelCatalog();

function entry(overrides: Partial<ModelInfoInput> = {}): ModelInfoInput {
  return {
    provider: 'acme',
    model: 'acme-1',
    contextWindow: 50_000,
    tokenizer: { strategy: 'heuristic' },
    ...overrides,
  };
}

function caught(fn: () => unknown): CtxGuardError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CtxGuardError) return error;
    throw error;
  }
  throw new Error('expected a CtxGuardError');
}

describe('get: exact match', () => {
  it('returns the entry with match "exact"', () => {
    const gpt4o = catalog.get('openai', 'gpt-4o');
    expect(gpt4o).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o',
      contextWindow: 128_000,
      match: 'exact',
    });
    expect(gpt4o.tokenizer).toEqual({ strategy: 'tiktoken', encoding: 'o200k_base' });
    expect(catalog.get('openai', 'gpt-4').contextWindow).toBe(8_192);
  });

  it('prefers an exact dated snapshot over its family entry', () => {
    expect(catalog.get('openai', 'gpt-4o-2024-05-13')).toMatchObject({
      model: 'gpt-4o-2024-05-13',
      maxOutputTokens: 4_096,
      match: 'exact',
    });
  });

  it('is case-insensitive and trims provider and model', () => {
    const resolved = catalog.get('  OpenAI ', '\tGPT-4o-Mini\n');
    expect(resolved).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', match: 'exact' });
    expect(catalog.get('ANTHROPIC', 'Claude-Sonnet-4-5').match).toBe('exact');
  });

  it('treats an explicit "_default" model as the provider default', () => {
    expect(catalog.get('anthropic', '_default').match).toBe('provider-default');
  });
});

describe('get: prefix match', () => {
  it.each([
    ['openai', 'gpt-4o-2024-08-06', 'gpt-4o'],
    ['openai', 'gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['openai', 'gpt-4o-audio-preview', 'gpt-4o'],
    ['openai', 'gpt-4-0613', 'gpt-4'],
    ['openai', 'gpt-4-turbo-2024-04-09', 'gpt-4-turbo'],
    ['openai', 'gpt-4.1-2025-04-14', 'gpt-4.1'],
    ['openai', 'gpt-4.1-mini-2025-04-14', 'gpt-4.1-mini'],
    ['openai', 'gpt-5-2025-08-07', 'gpt-5'],
    ['openai', 'gpt-5-mini-2025-08-07', 'gpt-5-mini'],
    ['openai', 'gpt-5.1-2025-11-13', 'gpt-5.1'],
    ['openai', 'o1-mini-2024-09-12', 'o1-mini'],
    ['openai', 'o3-mini-2025-01-31', 'o3-mini'],
    ['openai', 'o3-2025-04-16', 'o3'],
    ['openai', 'gpt-3.5-turbo-0125', 'gpt-3.5-turbo'],
    ['anthropic', 'claude-opus-4-1-20250805-extra', 'claude-opus-4-1-20250805'],
    ['anthropic', 'claude-3-5-sonnet-latest', 'claude-3-5-sonnet'],
    ['anthropic', 'claude-3-7-sonnet-latest', 'claude-3-7-sonnet'],
    ['anthropic', 'claude-sonnet-4-0', 'claude-sonnet-4'],
    ['google-ai', 'gemini-2.5-flash-preview-05-20', 'gemini-2.5-flash'],
    ['google-ai', 'gemini-2.5-flash-lite-preview-06-17', 'gemini-2.5-flash-lite'],
    ['google-ai', 'gemini-1.5-pro-002', 'gemini-1.5-pro'],
    ['vertex', 'claude-sonnet-4-5@20250929', 'claude-sonnet-4-5'],
    ['vertex', 'claude-3-haiku@20240307', 'claude'],
    ['bedrock', 'anthropic.claude-3-haiku-20240307-v1:0:200k', 'anthropic.claude-3-haiku-20240307-v1:0'],
  ])('%s %s → %s', (provider, model, expected) => {
    const resolved = catalog.get(provider, model);
    expect(resolved.model).toBe(expected);
    expect(resolved.match).toBe('prefix');
  });

  it("reads a gateway's dotted version as the provider's hyphenated id (claude-sonnet-4.5)", () => {
    const catalog = new ModelCatalog();
    for (const [dotted, id] of [
      ['claude-sonnet-4.5', 'claude-sonnet-4-5'],
      ['claude-haiku-4.5', 'claude-haiku-4-5'],
      ['claude-opus-4.1', 'claude-opus-4-1'],
    ] as const) {
      expect(catalog.get('anthropic', dotted)).toMatchObject({ model: id, match: 'exact' });
    }
    // An id the catalog has with its dot stays as it is.
    expect(catalog.get('openai', 'gpt-4.1')).toMatchObject({ model: 'gpt-4.1', match: 'exact' });
  });

  it('never lets a shorter id claim a longer version number (gpt-4 vs gpt-4o / gpt-4.1 / gpt-4.5)', () => {
    // `o` and `.` continue a version; they are not id boundaries.
    expect(catalog.get('openai', 'gpt-4o-2024-11-20').contextWindow).toBe(128_000);
    expect(catalog.get('openai', 'gpt-4.1-nano-2025-04-14').contextWindow).toBe(1_047_576);
    const unknownMinor = catalog.get('openai', 'gpt-4.5-preview');
    expect(unknownMinor.match).toBe('provider-default');
    expect(unknownMinor.contextWindow).toBe(128_000);
    expect(catalog.get('openai', 'gpt-5.3-codex').match).toBe('provider-default');
    expect(catalog.get('openai', 'o10').match).toBe('provider-default');
  });

  it('picks the longest matching prefix', () => {
    const custom = new ModelCatalog({
      builtins: false,
      models: [
        entry({ model: 'm', contextWindow: 1_000 }),
        entry({ model: 'm-large', contextWindow: 2_000 }),
        entry({ model: 'm-large-v2', contextWindow: 3_000 }),
        entry({ model: '_default', contextWindow: 9_000 }),
      ],
    });
    expect(custom.get('acme', 'm-large-v2-2025').contextWindow).toBe(3_000);
    expect(custom.get('acme', 'm-large-v3').contextWindow).toBe(2_000);
    expect(custom.get('acme', 'm-small').contextWindow).toBe(1_000);
    expect(custom.get('acme', 'm:latest').contextWindow).toBe(1_000);
    expect(custom.get('acme', 'm@2025').contextWindow).toBe(1_000);
    expect(custom.get('acme', 'm/eu').contextWindow).toBe(1_000);
    expect(custom.get('acme', 'm_tuned').contextWindow).toBe(1_000);
    expect(custom.get('acme', 'mx').match).toBe('provider-default');
    expect(custom.get('acme', 'm.5').match).toBe('provider-default');
    // `_default` is never a prefix candidate
    expect(custom.get('acme', '_default-x').contextWindow).toBe(9_000);
    expect(custom.get('acme', '_default-x').match).toBe('provider-default');
  });

  it('accepts provider spellings of ids: Bedrock region profiles and Google resource names', () => {
    expect(catalog.get('bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toMatchObject({
      model: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
      match: 'exact',
    });
    expect(catalog.get('bedrock', 'global.anthropic.claude-haiku-4-5-20251001-v1:0').maxOutputTokens).toBe(
      64_000,
    );
    expect(catalog.get('google-ai', 'models/gemini-2.5-pro').model).toBe('gemini-2.5-pro');
    expect(catalog.get('vertex', 'publishers/google/models/gemini-2.0-flash-001')).toMatchObject({
      model: 'gemini-2.0-flash',
      match: 'prefix',
    });
    expect(
      catalog.get('vertex', 'projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash')
        .model,
    ).toBe('gemini-2.5-flash');
    // the spellings are provider-specific
    expect(catalog.get('openai', 'models/gpt-4o').match).toBe('provider-default');
  });
});

describe('get: fallbacks', () => {
  it('uses the provider default for unknown models and for no model', () => {
    expect(catalog.get('anthropic', 'claude-unknown')).toMatchObject({
      model: PROVIDER_DEFAULT_MODEL,
      contextWindow: 200_000,
      match: 'provider-default',
      tokenizer: { strategy: 'count_api', api: 'anthropic' },
    });
    expect(catalog.get('huggingface').contextWindow).toBe(32_000);
    expect(catalog.get('ollama', 'llama3.1:8b')).toMatchObject({
      contextWindow: 128_000,
      match: 'provider-default',
    });
  });

  it('uses the 128k global default with the heuristic tokenizer for unknown providers', () => {
    const resolved = catalog.get('Made-Up-Provider', 'whatever');
    expect(resolved).toMatchObject({
      provider: 'made-up-provider',
      model: PROVIDER_DEFAULT_MODEL,
      contextWindow: 128_000,
      match: 'global-default',
      tokenizer: { strategy: 'heuristic' },
    });
    expect(resolved.maxOutputTokens).toBeUndefined();
    expect(catalog.get('made-up-provider').match).toBe('global-default');
  });

  it.each(['constructor', '__proto__', 'tostring', 'valueof'])(
    'resolves a provider named %s like any other',
    (provider) => {
      const custom = new ModelCatalog({ models: [entry({ provider, model: 'm', contextWindow: 1_000 })] });
      expect(custom.get(provider, 'm')).toMatchObject({ provider, contextWindow: 1_000, match: 'exact' });
      expect(custom.get(provider, 'm-2').match).toBe('prefix');
      expect(custom.get(provider, 'other').match).toBe('global-default');
    },
  );

  it('falls back to the global default for a provider that has entries but no _default', () => {
    const custom = new ModelCatalog({ builtins: false, models: [entry()] });
    expect(custom.get('acme', 'acme-1').match).toBe('exact');
    expect(custom.get('acme', 'other')).toMatchObject({ match: 'global-default', contextWindow: 128_000 });
  });
});

describe('get: results', () => {
  it('are frozen, so callers cannot corrupt the catalog', () => {
    const resolved = catalog.get('openai', 'gpt-4o');
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.tokenizer)).toBe(true);
    expect(() => {
      (resolved as { contextWindow: number }).contextWindow = 1;
    }).toThrow(TypeError);
    expect(catalog.get('openai', 'gpt-4o').contextWindow).toBe(128_000);
    const listed = catalog.list('openai')[0]!;
    expect(Object.isFrozen(listed)).toBe(true);
  });

  it('give token-counter the tokenizer per provider', () => {
    expect(catalog.get('openai', 'gpt-3.5-turbo').tokenizer).toEqual({
      strategy: 'tiktoken',
      encoding: 'cl100k_base',
    });
    expect(catalog.get('azure', 'gpt-4o').tokenizer).toEqual({
      strategy: 'tiktoken',
      encoding: 'o200k_base',
    });
    expect(catalog.get('google-ai', 'gemini-2.5-pro').tokenizer).toEqual({
      strategy: 'count_api',
      api: 'gemini',
    });
    expect(catalog.get('vertex', 'gemini-2.5-pro').tokenizer).toEqual({
      strategy: 'count_api',
      api: 'gemini',
    });
    expect(catalog.get('vertex', 'claude-opus-4-1@20250805').tokenizer).toEqual({ strategy: 'heuristic' });
    expect(catalog.get('bedrock', 'anthropic.claude-3-opus-20240229-v1:0').tokenizer).toEqual({
      strategy: 'heuristic',
    });
    expect(catalog.get('mistral', 'mistral-large-latest').tokenizer).toEqual({ strategy: 'heuristic' });
  });
});

describe('has', () => {
  it('is true only for exact entries (case-insensitive)', () => {
    expect(catalog.has('openai', 'gpt-4o')).toBe(true);
    expect(catalog.has('OPENAI', ' GPT-4O ')).toBe(true);
    expect(catalog.has('openai', '_default')).toBe(true);
    expect(catalog.has('openai', 'gpt-4o-2024-08-06')).toBe(false);
    expect(catalog.has('nobody', 'gpt-4o')).toBe(false);
  });
});

describe('list and providers', () => {
  it('lists every provider of reference/001, sorted', () => {
    expect(catalog.providers()).toEqual([
      'anthropic',
      'azure',
      'bedrock',
      'google-ai',
      'huggingface',
      'litellm',
      'mistral',
      'ollama',
      'openai',
      'sagemaker',
      'vertex',
    ]);
  });

  it('lists a provider sorted by model id, and everything grouped by provider', () => {
    const mistral = catalog.list('Mistral').map((info) => info.model);
    expect(mistral).toEqual([
      '_default',
      'codestral-latest',
      'mistral-large-latest',
      'mistral-medium-latest',
      'mistral-small-latest',
    ]);
    const all = catalog.list();
    expect(all).toHaveLength(BUILTIN_MODELS.length);
    expect(all[0]!.provider).toBe('anthropic');
    expect(all.at(-1)!.provider).toBe('vertex');
    expect(catalog.list('nobody')).toEqual([]);
  });

  it('returns copies: mutating a list does not change the catalog', () => {
    const list = catalog.list('ollama');
    list.length = 0;
    expect(catalog.list('ollama')).toHaveLength(1);
  });
});

describe('register', () => {
  it('adds models and new providers, normalising case and whitespace', () => {
    const custom = createModelCatalog();
    custom.register({
      provider: ' OpenRouter ',
      model: ' Meta-Llama/Llama-3.1-70B ',
      contextWindow: 131_072,
      tokenizer: { strategy: 'heuristic' },
    });
    expect(custom.has('openrouter', 'meta-llama/llama-3.1-70b')).toBe(true);
    expect(custom.get('OPENROUTER', 'meta-llama/llama-3.1-70b')).toMatchObject({
      provider: 'openrouter',
      model: 'meta-llama/llama-3.1-70b',
      contextWindow: 131_072,
      match: 'exact',
    });
    expect(custom.providers()).toContain('openrouter');
  });

  it('answers a repeated lookup with what was registered since, not what it answered before', () => {
    const custom = new ModelCatalog();
    const provider = 'anthropic';
    const model = 'claude-sonnet-4-5-20250929';
    expect(custom.get(provider, model).contextWindow).toBe(200_000);
    expect(custom.get(provider, model)).toBe(custom.get(provider, model));
    custom.register({ provider, model, contextWindow: 1_000_000, tokenizer: { strategy: 'heuristic' } });
    expect(custom.get(provider, model).contextWindow).toBe(1_000_000);
    expect(custom.get(' Anthropic ', model).contextWindow).toBe(1_000_000);
  });

  it('overrides a built-in, including results cached before the override', () => {
    const custom = new ModelCatalog();
    expect(custom.get('anthropic', 'claude-sonnet-4-5-20250929').contextWindow).toBe(200_000);
    expect(custom.get('anthropic', 'claude-sonnet-4-5-20250929-x').contextWindow).toBe(200_000);
    custom.register([
      {
        provider: 'Anthropic',
        model: 'claude-sonnet-4-5-20250929',
        contextWindow: 1_000_000,
        maxOutputTokens: 64_000,
        tokenizer: { strategy: 'count_api', api: 'anthropic' },
        source: 'context-1m beta',
      },
    ]);
    expect(custom.get('anthropic', 'claude-sonnet-4-5-20250929')).toMatchObject({
      contextWindow: 1_000_000,
      source: 'context-1m beta',
      match: 'exact',
    });
    expect(custom.get('anthropic', 'claude-sonnet-4-5-20250929-x').contextWindow).toBe(1_000_000);
    expect(
      custom.list('anthropic').filter((info) => info.model === 'claude-sonnet-4-5-20250929'),
    ).toHaveLength(1);
    // other catalogs are independent
    expect(catalog.get('anthropic', 'claude-sonnet-4-5-20250929').contextWindow).toBe(200_000);
  });

  it('overrides a provider default', () => {
    const custom = new ModelCatalog();
    expect(custom.getContextWindow('ollama', 'llama3.1')).toBe(128_000);
    custom.register(entry({ provider: 'ollama', model: '_default', contextWindow: 8_192 }));
    expect(custom.getContextWindow('ollama', 'llama3.1')).toBe(8_192);
  });

  it('applies later duplicates in one call over earlier ones', () => {
    const custom = new ModelCatalog({ builtins: false });
    custom.register([entry({ contextWindow: 1_000 }), entry({ model: 'ACME-1', contextWindow: 2_000 })]);
    expect(custom.list('acme')).toHaveLength(1);
    expect(custom.getContextWindow('acme', 'acme-1')).toBe(2_000);
  });

  it.each([
    [{ contextWindow: -1 }, 'models[1].contextWindow'],
    [{ contextWindow: 1.5 }, 'models[1].contextWindow'],
    [{ contextWindow: '100k' }, 'models[1].contextWindow'],
    [{ model: '' }, 'models[1].model'],
    [{ model: '   ' }, 'models[1].model'],
    [{ provider: undefined }, 'models[1].provider'],
    [{ tokenizer: { strategy: 'tiktoken', encoding: 'gpt2' } }, 'models[1].tokenizer.encoding'],
    [{ tokenizer: { strategy: 'count_api', api: 'openai' } }, 'models[1].tokenizer.api'],
    [{ tokenizer: { strategy: 'magic' } }, 'models[1].tokenizer.strategy'],
    [
      { maxOutputToken: 90 },
      'models[1]: Unrecognized key: "maxOutputToken" (did you mean "maxOutputTokens"?)',
    ],
    [
      { tokenizer: { strategy: 'heuristic', encoding: 'o200k_base' } },
      'models[1].tokenizer: Unrecognized key',
    ],
    [{ maxOutputTokens: 0 }, 'models[1].maxOutputTokens'],
    [{ maxOutputTokens: 60_000 }, 'models[1].maxOutputTokens'],
    [{ maxInputTokens: 60_000 }, 'models[1].maxInputTokens'],
  ])('rejects %j naming %s and leaves the catalog unchanged', (bad, field) => {
    const custom = new ModelCatalog({
      builtins: false,
      models: [entry({ model: 'kept', contextWindow: 10 })],
    });
    custom.get('acme', 'acme-1'); // caches a global-default result
    const before = custom.list();
    const error = caught(() =>
      custom.register([entry({ model: 'first-valid' }), { ...entry(), ...bad } as ModelInfoInput]),
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain(field);
    expect(custom.list()).toEqual(before);
    expect(custom.has('acme', 'first-valid')).toBe(false);
    expect(custom.get('acme', 'acme-1').match).toBe('global-default');
  });

  it('names index 0 for a single invalid object and rejects non-objects', () => {
    const custom = new ModelCatalog({ builtins: false });
    expect(caught(() => custom.register(entry({ contextWindow: 0 }))).message).toContain(
      'models[0].contextWindow',
    );
    expect(caught(() => custom.register(null as unknown as ModelInfoInput)).message).toContain('models[0]');
    expect(custom.providers()).toEqual([]);
  });
});

describe('constructor options', () => {
  it('starts empty with builtins: false', () => {
    const empty = new ModelCatalog({ builtins: false });
    expect(empty.providers()).toEqual([]);
    expect(empty.get('openai', 'gpt-4o').match).toBe('global-default');
  });

  it('registers options.models over the built-ins', () => {
    const custom = createModelCatalog({
      models: [entry({ provider: 'openai', model: 'gpt-4o', contextWindow: 64_000 })],
    });
    expect(custom.getContextWindow('openai', 'gpt-4o')).toBe(64_000);
    expect(custom.getContextWindow('openai', 'gpt-4o-mini')).toBe(128_000);
  });

  it.each([
    [{ builtins: 'no' }, 'options.builtins'],
    [{ models: [entry(), entry({ contextWindow: 0 })] }, 'options.models[1].contextWindow'],
    [{ model: [] }, 'model'],
    ['nope', 'options'],
  ])('rejects %j with an invalid_options error naming %s', (options, field) => {
    const error = caught(() => new ModelCatalog(options as never));
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect(error.code).toBe('invalid_options');
    expect(error.message).toContain(field);
  });
});

describe('getContextWindow and getAvailableInputTokens', () => {
  it('reserve 35% below the 182,857-token crossover and 64k above it, never more than the max output', () => {
    expect(catalog.getAvailableInputTokens('openai', 'gpt-4')).toBe(8_192 - 2_868);
    // 35% would be 5,735 / 44,800 / 64,000 / 64,000, but these models never reply with more than their max output.
    expect(catalog.getAvailableInputTokens('openai', 'gpt-3.5-turbo')).toBe(16_385 - 4_096);
    expect(catalog.getAvailableInputTokens('openai', 'gpt-4o')).toBe(128_000 - 16_384);
    expect(catalog.getAvailableInputTokens('anthropic', 'claude-3-haiku-20240307')).toBe(200_000 - 4_096);
    expect(catalog.getAvailableInputTokens('google-ai', 'gemini-1.5-pro')).toBe(2_097_152 - 8_192);
    expect(catalog.getAvailableInputTokens('anthropic', 'claude-sonnet-4-5')).toBe(200_000 - 64_000);
    const custom = new ModelCatalog({
      builtins: false,
      models: [
        entry({ model: 'below', contextWindow: 182_854 }),
        entry({ model: 'at', contextWindow: 182_857 }),
      ],
    });
    expect(custom.getAvailableInputTokens('acme', 'below')).toBe(182_854 - 63_999);
    expect(custom.getAvailableInputTokens('acme', 'at')).toBe(182_857 - 64_000);
  });

  it("cap the default reserve at the model max output, but the request's maxOutputTokens still wins", () => {
    const custom = new ModelCatalog({
      builtins: false,
      models: [
        entry({ model: 'short-replies', contextWindow: 100_000, maxOutputTokens: 1_000 }),
        entry({ model: 'long-replies', contextWindow: 100_000, maxOutputTokens: 90_000 }),
        entry({ model: 'no-limit', contextWindow: 100_000 }),
      ],
    });
    expect(custom.getAvailableInputTokens('acme', 'short-replies')).toBe(99_000);
    expect(custom.getAvailableInputTokens('acme', 'long-replies')).toBe(65_000);
    expect(custom.getAvailableInputTokens('acme', 'no-limit')).toBe(65_000);
    expect(custom.getAvailableInputTokens('acme', 'short-replies', 5_000)).toBe(95_000);
    expect(custom.getAvailableInputTokens('acme', 'short-replies', 0)).toBe(100_000);
  });

  it("subtract the request's maxOutputTokens instead of the default reserve", () => {
    expect(catalog.getAvailableInputTokens('openai', 'gpt-4o', 4_096)).toBe(123_904);
    expect(catalog.getAvailableInputTokens('openai', 'gpt-4o', 0)).toBe(128_000);
    expect(catalog.getAvailableInputTokens('anthropic', 'claude-sonnet-4-5', 100_000)).toBe(100_000);
    expect(catalog.getAvailableInputTokens('unknown-provider', undefined, 8_000)).toBe(120_000);
  });

  it('return 0, never a negative number, when maxOutputTokens reaches or exceeds the window', () => {
    expect(catalog.getAvailableInputTokens('openai', 'gpt-4', 8_192)).toBe(0);
    expect(catalog.getAvailableInputTokens('openai', 'gpt-4', 8_193)).toBe(0);
    expect(catalog.getAvailableInputTokens('openai', 'gpt-4', 1_000_000)).toBe(0);
  });

  it('cap input at maxInputTokens (GPT-5: 272k of a 400k window)', () => {
    expect(catalog.getContextWindow('openai', 'gpt-5')).toBe(400_000);
    expect(catalog.getAvailableInputTokens('openai', 'gpt-5')).toBe(272_000); // 400k − 64k = 336k, capped
    expect(catalog.getAvailableInputTokens('openai', 'gpt-5-2025-08-07', 128_000)).toBe(272_000);
    expect(catalog.getAvailableInputTokens('openai', 'gpt-5', 200_000)).toBe(200_000);
  });

  it('use the fallbacks', () => {
    expect(catalog.getContextWindow('anthropic')).toBe(200_000);
    expect(catalog.getContextWindow('nobody', 'nothing')).toBe(128_000);
    expect(catalog.getAvailableInputTokens('nobody')).toBe(128_000 - 44_800);
  });

  it('module-level helpers answer from the built-in catalog', () => {
    expect(getContextWindow('OpenAI', 'gpt-4.1-mini-2025-04-14')).toBe(1_047_576);
    expect(getAvailableInputTokens('openai', 'gpt-4o')).toBe(111_616);
    expect(getAvailableInputTokens('openai', 'gpt-4o', 16_384)).toBe(111_616);
    expect(getAvailableInputTokens('openai', 'gpt-4o', 44_800)).toBe(83_200);
    expect(getAvailableInputTokens('vertex')).toBe(1_048_576 - 64_000);
  });
});

describe('bad arguments', () => {
  it.each([
    [() => catalog.get('', 'gpt-4o'), 'provider'],
    [() => catalog.get('   ', 'gpt-4o'), 'provider'],
    [() => catalog.get(undefined as unknown as string), 'provider'],
    [() => catalog.get(42 as unknown as string), 'provider'],
    [() => catalog.get('openai', ''), 'model'],
    [() => catalog.get('openai', ' \n '), 'model'],
    [() => catalog.get('openai', null as unknown as string), 'model'],
    [() => catalog.has('openai', ''), 'model'],
    [() => catalog.list(''), 'provider'],
    [() => catalog.getContextWindow('', 'x'), 'provider'],
    [() => catalog.getAvailableInputTokens('openai', 'gpt-4o', -1), 'maxOutputTokens'],
    [() => catalog.getAvailableInputTokens('openai', 'gpt-4o', 1.5), 'maxOutputTokens'],
    [() => catalog.getAvailableInputTokens('openai', 'gpt-4o', Number.NaN), 'maxOutputTokens'],
    [
      () => catalog.getAvailableInputTokens('openai', 'gpt-4o', '4096' as unknown as number),
      'maxOutputTokens',
    ],
    [() => getAvailableInputTokens('', 'gpt-4o'), 'provider'],
  ])('throws invalid_input naming the argument (%#)', (call, name) => {
    const error = caught(call);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message.startsWith(`${name}: `)).toBe(true);
    expect((error as InvalidInputError).path).toEqual([]);
  });

  it('explains what was wrong', () => {
    expect(caught(() => catalog.get('  ')).message).toBe('provider: must not be empty or blank');
    expect(caught(() => catalog.get(7 as unknown as string)).message).toBe('provider: expected a string');
    expect(caught(() => catalog.getAvailableInputTokens('openai', 'gpt-4o', -3)).message).toBe(
      'maxOutputTokens: expected a non-negative integer',
    );
  });
});

describe('resolution cache', () => {
  it('keeps provider and model apart, whatever characters they hold', () => {
    const custom = new ModelCatalog({ builtins: false, models: [entry({ provider: 'a', model: 'b' })] });
    expect(custom.get('a', 'b').match).toBe('exact');
    expect(custom.get('a\u0000b').match).toBe('global-default');
    expect(custom.get('a\u0000b').provider).toBe('a\u0000b');
  });

  it('stays correct past its size limit', () => {
    const custom = new ModelCatalog();
    for (let i = 0; i < 3_000; i++) {
      expect(custom.get('openai', `gpt-4o-variant-${i}`).model).toBe('gpt-4o');
    }
    expect(custom.get('openai', 'gpt-4o-variant-0').match).toBe('prefix');
  });
});
