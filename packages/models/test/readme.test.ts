import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILTIN_MODELS, getAvailableInputTokens, getOutputReserve, ModelCatalog } from '../src/index.js';

describe('README', () => {
  it('quick start gives the figures its comments claim', () => {
    expect(getAvailableInputTokens('openai', 'gpt-4o-2024-08-06')).toBe(111_616);
    expect(getAvailableInputTokens('anthropic', 'claude-sonnet-4-5', 8_192)).toBe(191_808);

    const catalog = new ModelCatalog({
      models: [
        { provider: 'ollama', model: 'llama3.1', contextWindow: 8_192, tokenizer: { strategy: 'heuristic' } },
      ],
    });
    expect(catalog.get('Ollama', 'llama3.1:8b')).toMatchObject({
      model: 'llama3.1',
      contextWindow: 8192,
      match: 'prefix',
    });
    expect(catalog.get('openai', 'gpt-4.1-mini').tokenizer).toEqual({
      strategy: 'tiktoken',
      encoding: 'o200k_base',
    });
    expect(catalog.getAvailableInputTokens('openai', 'gpt-5')).toBe(272_000);
  });

  it('lookup-rule examples resolve as described', () => {
    const catalog = new ModelCatalog();
    const resolved = (provider: string, model: string) => {
      const { model: id, match } = catalog.get(provider, model);
      return `${id} (${match})`;
    };
    expect(resolved('openai', 'gpt-4o-2024-08-06')).toBe('gpt-4o (prefix)');
    expect(resolved('openai', 'gpt-4o-mini-2024-07-18')).toBe('gpt-4o-mini (prefix)');
    expect(resolved('vertex', 'claude-sonnet-4-5@20250929')).toBe('claude-sonnet-4-5 (prefix)');
    expect(resolved('openai', 'gpt-4-0613')).toBe('gpt-4 (prefix)');
    expect(resolved('openai', 'gpt-4.5-preview')).toBe('_default (provider-default)');
    expect(resolved('openai', 'gpt-5.3-codex')).toBe('_default (provider-default)');
    expect(resolved('anthropic', 'claude-opus-5-5')).toBe('claude-opus-5 (prefix)');
    expect(resolved('anthropic', 'claude-sonnet-5-5')).toBe('claude-sonnet-5 (prefix)');
    expect(resolved('bedrock', 'us.anthropic.claude-3-haiku-20240307-v1:0')).toBe(
      'anthropic.claude-3-haiku-20240307-v1:0 (exact)',
    );
    expect(resolved('google-ai', 'models/gemini-2.5-pro')).toBe('gemini-2.5-pro (exact)');
  });

  it('the data section counts the built-in entries and providers right', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(Number(/\((\d+) entries\)/.exec(readme)?.[1])).toBe(BUILTIN_MODELS.length);
    expect(new ModelCatalog().providers()).toEqual([
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

  it('the output reserve holds back no more than the model max output', () => {
    expect(getAvailableInputTokens('openai', 'gpt-4o')).toBe(111_616);
    expect(128_000 - getOutputReserve(128_000)).toBe(83_200);
    expect(getAvailableInputTokens('anthropic', 'claude-sonnet-4-5')).toBe(136_000);
  });

  it('the reserve reaches 64k at a window of 182,855 tokens (35% rounded up)', () => {
    const catalog = new ModelCatalog({
      builtins: false,
      models: [
        { provider: 'p', model: 'below', contextWindow: 182_854, tokenizer: { strategy: 'heuristic' } },
        { provider: 'p', model: 'at', contextWindow: 182_855, tokenizer: { strategy: 'heuristic' } },
      ],
    });
    expect(182_854 - catalog.getAvailableInputTokens('p', 'below')).toBe(63_999);
    expect(182_855 - catalog.getAvailableInputTokens('p', 'at')).toBe(64_000);
  });
});
