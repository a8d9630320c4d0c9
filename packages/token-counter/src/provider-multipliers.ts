import type { ContentClass } from '@ctxguard/calibration';

/** A multiplier for every content class, or one per class. */
export type ProviderMultiplier = number | Partial<Record<ContentClass, number>>;

/**
 * Prior token multipliers over the o200k-based estimate, per provider, as seeded by the
 * reference design. They are priors only: calibration replaces them as confidence grows, and
 * they are known to be rough (the legacy Claude tokenizer measured 1.05–1.09× on English,
 * code and JSON, not 1.23×). Overestimating is the safe side for a context guard.
 */
export const PROVIDER_MULTIPLIERS: Readonly<Record<string, number>> = Object.freeze({
  anthropic: 1.23,
  bedrock: 1.23,
  'google-ai': 1.18,
  google: 1.18,
  gemini: 1.18,
  vertex: 1.18,
  mistral: 1.26,
  openai: 1,
  azure: 1,
  ollama: 1,
  litellm: 1,
  huggingface: 1,
  sagemaker: 1,
});

/** The prior multiplier of a provider for one class: overrides first, then the defaults, else 1. */
export function providerMultiplier(
  provider: string,
  contentClass: ContentClass,
  overrides: Readonly<Record<string, ProviderMultiplier>> = {},
): number {
  const id = typeof provider === 'string' ? provider.toLowerCase() : '';
  const own = Object.hasOwn(overrides, id) ? overrides[id] : undefined;
  if (typeof own === 'number') return own;
  if (own && typeof own === 'object') {
    const perClass = own[contentClass];
    if (typeof perClass === 'number') return perClass;
  }
  return Object.hasOwn(PROVIDER_MULTIPLIERS, id) ? (PROVIDER_MULTIPLIERS[id] as number) : 1;
}
