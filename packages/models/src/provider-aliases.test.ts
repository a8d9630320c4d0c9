import { InvalidInputError } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { ModelCatalog } from './model-catalog.js';
import { catalogProvider } from './provider-aliases.js';

const catalog = new ModelCatalog();

describe('catalogProvider', () => {
  it.each([
    ['google', 'google-ai'],
    ['Gemini', 'google-ai'],
    ['google_genai', 'google-ai'],
    ['google-vertex', 'vertex'],
    ['vertex_ai', 'vertex'],
    ['amazon-bedrock', 'bedrock'],
    ['azure-openai', 'azure'],
    ['azure_openai', 'azure'],
    ['mistralai', 'mistral'],
  ])('names alias %s by the catalog provider %s', (alias, provider) => {
    expect(catalogProvider(alias)).toBe(provider);
  });

  it.each([
    ['anthropic.messages', 'anthropic'],
    ['openai.chat', 'openai'],
    ['openai.responses', 'openai'],
    ['azure.chat', 'azure'],
    ['azure.responses', 'azure'],
    ['amazon-bedrock', 'bedrock'],
    ['google.generative-ai', 'google-ai'],
    ['google.vertex.chat', 'vertex'],
    ['google.vertex.anthropic.messages', 'anthropic'],
    ['vertex.anthropic.messages', 'anthropic'],
    ['mistral.chat', 'mistral'],
    ['ollama.chat', 'ollama'],
  ])('names AI SDK provider %s by the catalog provider %s', (aiSdk, provider) => {
    expect(catalogProvider(aiSdk)).toBe(provider);
  });

  it('gives any other name back trimmed and lower-cased, and rejects a blank one', () => {
    expect(catalogProvider(' OpenAI ')).toBe('openai');
    expect(catalogProvider('acme')).toBe('acme');
    expect(catalogProvider('acme.chat')).toBe('acme');
    expect(catalogProvider('constructor')).toBe('constructor');
    expect(() => catalogProvider(' ')).toThrow(InvalidInputError);
  });

  it('names only providers the built-in catalog has', () => {
    const aliases = ['google', 'gemini', 'google-vertex', 'vertex_ai', 'amazon-bedrock', 'azure-openai'];
    for (const alias of aliases) expect(catalog.providers()).toContain(catalogProvider(alias));
  });
});

describe('ModelCatalog lookups by alias', () => {
  it('resolve a provider alias to the catalog provider, not the global default', () => {
    expect(catalog.get('google', 'gemini-2.5-pro')).toMatchObject({
      provider: 'google-ai',
      model: 'gemini-2.5-pro',
      contextWindow: 1_048_576,
      match: 'exact',
    });
    expect(catalog.get('gemini', 'models/gemini-2.5-flash').model).toBe('gemini-2.5-flash');
    expect(catalog.get('google-vertex', 'claude-sonnet-4-5@20250929')).toMatchObject({
      provider: 'vertex',
      match: 'prefix',
    });
    expect(catalog.get('amazon-bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0').match).toBe('exact');
    expect(catalog.get('azure-openai', 'gpt-4o').provider).toBe('azure');
    expect(catalog.get('google.generative-ai', 'gemini-2.5-pro').provider).toBe('google-ai');
    expect(catalog.getAvailableInputTokens('google', 'gemini-2.5-pro')).toBe(
      catalog.getAvailableInputTokens('google-ai', 'gemini-2.5-pro'),
    );
  });

  it('read aliases in has and list too', () => {
    expect(catalog.has('google', 'gemini-2.5-pro')).toBe(true);
    expect(catalog.list('google')).toEqual(catalog.list('google-ai'));
  });

  it('leave a provider registered under an alias its own entries', () => {
    const custom = new ModelCatalog({
      models: [
        {
          provider: 'google',
          model: 'gemini-2.5-pro',
          contextWindow: 10_000,
          tokenizer: { strategy: 'heuristic' },
        },
      ],
    });
    expect(custom.get('google', 'gemini-2.5-pro')).toMatchObject({
      provider: 'google',
      contextWindow: 10_000,
    });
    expect(custom.get('google', 'gemini-2.5-flash').match).toBe('global-default');
    expect(custom.get('gemini', 'gemini-2.5-flash').provider).toBe('google-ai');
  });

  it('keep an unknown provider as given in the global default', () => {
    expect(catalog.get('acme.chat', 'x')).toMatchObject({ provider: 'acme.chat', match: 'global-default' });
  });
});
