import type { ModelInfoInput, Tokenizer } from './model-info.js';

// The built-in catalog. Plain data: every figure carries its source (README "Data sources" says
// how conflicts between sources were settled). Providers and model ids are lower-case here.

const O200K: Tokenizer = { strategy: 'tiktoken', encoding: 'o200k_base' };
const CL100K: Tokenizer = { strategy: 'tiktoken', encoding: 'cl100k_base' };
const ANTHROPIC_API: Tokenizer = { strategy: 'count_api', api: 'anthropic' };
const GEMINI_API: Tokenizer = { strategy: 'count_api', api: 'gemini' };
/** Counted by the heuristic estimator: no exact tokenizer or count API serves these models. */
export const HEURISTIC: Tokenizer = /* @__PURE__ */ Object.freeze({ strategy: 'heuristic' });

/** NeuroLink's context window registry: the figures no provider page lists, and each provider's fallback. */
const NEUROLINK = 'https://github.com/juspay/neurolink/blob/main/src/lib/constants/contextWindows.ts';
const CLAUDE_LEGACY = 'https://docs.anthropic.com/en/docs/about-claude/models/overview';
const GEMINI_MODELS = 'https://ai.google.dev/gemini-api/docs/models';
const AZURE_MODELS = 'https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/models';
const MISTRAL_MEDIUM =
  'https://docs.mistral.ai/models/mistral-medium-1-0-23-12 (32k model retired); https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/mistral/mistral-medium-3 (128k)';

/** Every built-in model entry; 'ModelCatalog' loads these unless 'builtins: false'. */
// biome-ignore format: one entry per line reads as a table
export const BUILTIN_MODELS: readonly ModelInfoInput[] = /* @__PURE__ */ Object.freeze([
  // ── anthropic: counted by Anthropic's count-tokens endpoint ──────────────────────────────
  { provider: 'anthropic', model: '_default', contextWindow: 200_000, tokenizer: ANTHROPIC_API, source: NEUROLINK },
  { provider: 'anthropic', model: 'claude-opus-4-20250514', contextWindow: 200_000, maxOutputTokens: 32_000, tokenizer: ANTHROPIC_API, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'anthropic', model: 'claude-sonnet-4-20250514', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: ANTHROPIC_API, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'anthropic', model: 'claude-3-7-sonnet-20250219', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: ANTHROPIC_API, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'anthropic', model: 'claude-3-5-sonnet-20241022', contextWindow: 200_000, maxOutputTokens: 8_192, tokenizer: ANTHROPIC_API, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'anthropic', model: 'claude-3-5-haiku-20241022', contextWindow: 200_000, maxOutputTokens: 8_192, tokenizer: ANTHROPIC_API, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'anthropic', model: 'claude-3-opus-20240229', contextWindow: 200_000, maxOutputTokens: 4_096, tokenizer: ANTHROPIC_API, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'anthropic', model: 'claude-3-sonnet-20240229', contextWindow: 200_000, maxOutputTokens: 4_096, tokenizer: ANTHROPIC_API, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'anthropic', model: 'claude-3-haiku-20240307', contextWindow: 200_000, maxOutputTokens: 4_096, tokenizer: ANTHROPIC_API, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  // Family ids: '-latest', '-0' aliases and other snapshots resolve to these by prefix.
  { provider: 'anthropic', model: 'claude-3-haiku', contextWindow: 200_000, maxOutputTokens: 4_096, tokenizer: ANTHROPIC_API, source: CLAUDE_LEGACY },
  { provider: 'anthropic', model: 'claude-3-sonnet', contextWindow: 200_000, maxOutputTokens: 4_096, tokenizer: ANTHROPIC_API, source: CLAUDE_LEGACY },
  { provider: 'anthropic', model: 'claude-3-opus', contextWindow: 200_000, maxOutputTokens: 4_096, tokenizer: ANTHROPIC_API, source: CLAUDE_LEGACY },
  { provider: 'anthropic', model: 'claude-3-5-haiku', contextWindow: 200_000, maxOutputTokens: 8_192, tokenizer: ANTHROPIC_API, source: CLAUDE_LEGACY },
  { provider: 'anthropic', model: 'claude-3-5-sonnet', contextWindow: 200_000, maxOutputTokens: 8_192, tokenizer: ANTHROPIC_API, source: CLAUDE_LEGACY },
  { provider: 'anthropic', model: 'claude-3-7-sonnet', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: ANTHROPIC_API, source: CLAUDE_LEGACY },
  { provider: 'anthropic', model: 'claude-sonnet-4', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: ANTHROPIC_API, source: CLAUDE_LEGACY },
  { provider: 'anthropic', model: 'claude-opus-4', contextWindow: 200_000, maxOutputTokens: 32_000, tokenizer: ANTHROPIC_API, source: CLAUDE_LEGACY },
  { provider: 'anthropic', model: 'claude-opus-4-1', contextWindow: 200_000, maxOutputTokens: 32_000, tokenizer: ANTHROPIC_API, source: CLAUDE_LEGACY },
  { provider: 'anthropic', model: 'claude-opus-4-1-20250805', contextWindow: 200_000, maxOutputTokens: 32_000, tokenizer: ANTHROPIC_API, source: CLAUDE_LEGACY },
  { provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/sonnet-4-5/overview' },
  { provider: 'anthropic', model: 'claude-sonnet-4-5-20250929', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/sonnet-4-5/overview' },
  { provider: 'anthropic', model: 'claude-haiku-4-5', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/haiku-4-5/overview' },
  { provider: 'anthropic', model: 'claude-haiku-4-5-20251001', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/haiku-4-5/overview' },
  { provider: 'anthropic', model: 'claude-opus-4-5', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/opus-4-5/overview' },
  { provider: 'anthropic', model: 'claude-opus-4-5-20251101', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/opus-4-5/overview' },
  { provider: 'anthropic', model: 'claude-opus-4-6', contextWindow: 1_000_000, maxOutputTokens: 128_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/opus-4-6/overview' },
  { provider: 'anthropic', model: 'claude-sonnet-4-6', contextWindow: 1_000_000, maxOutputTokens: 128_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/sonnet-4-6/overview' },
  { provider: 'anthropic', model: 'claude-opus-4-7', contextWindow: 1_000_000, maxOutputTokens: 128_000, tokenizer: ANTHROPIC_API, source: 'https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/partner-models/claude/opus-4-7' },
  { provider: 'anthropic', model: 'claude-opus-4-8', contextWindow: 1_000_000, maxOutputTokens: 128_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/opus-4-8/overview' },
  { provider: 'anthropic', model: 'claude-opus-5', contextWindow: 1_000_000, maxOutputTokens: 128_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/opus-5/overview' },
  { provider: 'anthropic', model: 'claude-sonnet-5', contextWindow: 1_000_000, maxOutputTokens: 128_000, tokenizer: ANTHROPIC_API, source: 'https://platform.claude.com/docs/en/models/sonnet-5/overview' },

  // ── openai: local tiktoken ────────────────────────────────────────────────────────────────
  { provider: 'openai', model: '_default', contextWindow: 128_000, tokenizer: O200K, source: NEUROLINK },
  { provider: 'openai', model: 'gpt-4o', contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-4o' },
  { provider: 'openai', model: 'gpt-4o-2024-05-13', contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-4o' },
  { provider: 'openai', model: 'gpt-4o-mini', contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-4o-mini' },
  { provider: 'openai', model: 'chatgpt-4o-latest', contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/chatgpt-4o-latest' },
  { provider: 'openai', model: 'gpt-4-turbo', contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-4-turbo' },
  { provider: 'openai', model: 'gpt-4-turbo-preview', contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-4-turbo-preview' },
  { provider: 'openai', model: 'gpt-4-1106-preview', contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-4-turbo-preview' },
  { provider: 'openai', model: 'gpt-4-0125-preview', contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-4-turbo-preview' },
  { provider: 'openai', model: 'gpt-4', contextWindow: 8_192, maxOutputTokens: 8_192, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-4' },
  { provider: 'openai', model: 'gpt-3.5-turbo', contextWindow: 16_385, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-3.5-turbo' },
  { provider: 'openai', model: 'gpt-3.5-turbo-0613', contextWindow: 4_096, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/deprecations' },
  { provider: 'openai', model: 'gpt-3.5-turbo-0301', contextWindow: 4_096, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/deprecations' },
  { provider: 'openai', model: 'gpt-3.5-turbo-instruct', contextWindow: 4_096, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-3.5-turbo-instruct' },
  { provider: 'openai', model: 'gpt-3.5-turbo-16k', contextWindow: 16_385, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-3.5-turbo' },
  { provider: 'openai', model: 'gpt-4-32k', contextWindow: 32_768, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-4' },
  { provider: 'openai', model: 'gpt-4-vision-preview', contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-4-turbo-preview' },
  { provider: 'openai', model: 'gpt-4-1106-vision-preview', contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/gpt-4-turbo-preview' },
  { provider: 'openai', model: 'davinci-002', contextWindow: 16_384, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/davinci-002' },
  { provider: 'openai', model: 'babbage-002', contextWindow: 16_384, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/babbage-002' },
  { provider: 'openai', model: 'text-embedding-3-small', contextWindow: 8_191, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/text-embedding-3-small' },
  { provider: 'openai', model: 'text-embedding-3-large', contextWindow: 8_191, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/text-embedding-3-large' },
  { provider: 'openai', model: 'text-embedding-ada-002', contextWindow: 8_191, tokenizer: CL100K, source: 'https://platform.openai.com/docs/models/text-embedding-ada-002' },
  { provider: 'openai', model: 'o1', contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/o1' },
  { provider: 'openai', model: 'o1-mini', contextWindow: 128_000, maxOutputTokens: 65_536, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/o1-mini' },
  { provider: 'openai', model: 'o1-preview', contextWindow: 128_000, maxOutputTokens: 32_768, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/o1-preview' },
  { provider: 'openai', model: 'o1-pro', contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/o1-pro' },
  { provider: 'openai', model: 'o3', contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/o3' },
  { provider: 'openai', model: 'o3-pro', contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/o3-pro' },
  { provider: 'openai', model: 'o3-mini', contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/o3-mini' },
  { provider: 'openai', model: 'o4-mini', contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/o4-mini' },
  { provider: 'openai', model: 'gpt-4.1', contextWindow: 1_047_576, maxOutputTokens: 32_768, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-4.1' },
  { provider: 'openai', model: 'gpt-4.1-mini', contextWindow: 1_047_576, maxOutputTokens: 32_768, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-4.1-mini' },
  { provider: 'openai', model: 'gpt-4.1-nano', contextWindow: 1_047_576, maxOutputTokens: 32_768, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-4.1-nano' },
  // Corrected from NeuroLink's registry (1,047,576): a 400k window of which at most 272k may be input.
  { provider: 'openai', model: 'gpt-5', contextWindow: 400_000, maxOutputTokens: 128_000, maxInputTokens: 272_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-5; https://community.openai.com/t/huge-gpt-5-documentation-gap-flaw-causing-bugs-input-tokens-exceed-the-configured-limit-of-272-000-tokens/1344734' },
  { provider: 'openai', model: 'gpt-5-mini', contextWindow: 400_000, maxOutputTokens: 128_000, maxInputTokens: 272_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-5-mini' },
  { provider: 'openai', model: 'gpt-5-nano', contextWindow: 400_000, maxOutputTokens: 128_000, maxInputTokens: 272_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-5-nano' },
  { provider: 'openai', model: 'gpt-5-chat-latest', contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-5-chat-latest' },
  { provider: 'openai', model: 'gpt-5.1', contextWindow: 400_000, maxOutputTokens: 128_000, maxInputTokens: 272_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-5.1' },
  { provider: 'openai', model: 'gpt-5.1-chat-latest', contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-5.1-chat-latest' },
  { provider: 'openai', model: 'gpt-5.2', contextWindow: 400_000, maxOutputTokens: 128_000, maxInputTokens: 272_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-5.2' },
  { provider: 'openai', model: 'gpt-5.4', contextWindow: 1_050_000, maxOutputTokens: 128_000, maxInputTokens: 922_000, tokenizer: O200K, source: 'https://platform.openai.com/docs/models/gpt-5.4; https://developer.box.com/guides/box-ai/ai-models/openai-gpt-5-4-model-card' },
  // gpt-oss uses the o200k_harmony encoding: o200k_base plus chat-format special tokens.
  { provider: 'openai', model: 'gpt-oss-120b', contextWindow: 131_072, maxOutputTokens: 131_072, tokenizer: O200K, source: 'https://developers.openai.com/api/docs/models/gpt-oss-120b' },
  { provider: 'openai', model: 'gpt-oss-20b', contextWindow: 131_072, maxOutputTokens: 131_072, tokenizer: O200K, source: 'https://developers.openai.com/api/docs/models/gpt-oss-20b' },

  // ── google-ai (Gemini API): counted by the countTokens endpoint ──────────────────────────
  { provider: 'google-ai', model: '_default', contextWindow: 1_048_576, tokenizer: GEMINI_API, source: NEUROLINK },
  { provider: 'google-ai', model: 'gemini-2.5-pro', contextWindow: 1_048_576, maxOutputTokens: 65_536, tokenizer: GEMINI_API, source: 'https://ai.google.dev/gemini-api/docs/models' },
  { provider: 'google-ai', model: 'gemini-2.5-flash', contextWindow: 1_048_576, maxOutputTokens: 65_536, tokenizer: GEMINI_API, source: 'https://ai.google.dev/gemini-api/docs/models' },
  { provider: 'google-ai', model: 'gemini-2.5-flash-lite', contextWindow: 1_048_576, maxOutputTokens: 65_536, tokenizer: GEMINI_API, source: GEMINI_MODELS },
  { provider: 'google-ai', model: 'gemini-2.0-flash', contextWindow: 1_048_576, maxOutputTokens: 8_192, tokenizer: GEMINI_API, source: 'https://ai.google.dev/gemini-api/docs/models' },
  { provider: 'google-ai', model: 'gemini-2.0-flash-lite', contextWindow: 1_048_576, maxOutputTokens: 8_192, tokenizer: GEMINI_API, source: GEMINI_MODELS },
  { provider: 'google-ai', model: 'gemini-1.5-pro', contextWindow: 2_097_152, maxOutputTokens: 8_192, tokenizer: GEMINI_API, source: 'https://ai.google.dev/gemini-api/docs/models' },
  { provider: 'google-ai', model: 'gemini-1.5-flash', contextWindow: 1_048_576, maxOutputTokens: 8_192, tokenizer: GEMINI_API, source: 'https://ai.google.dev/gemini-api/docs/models' },
  { provider: 'google-ai', model: 'gemini-3-flash-preview', contextWindow: 1_048_576, maxOutputTokens: 65_536, tokenizer: GEMINI_API, source: 'https://cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/3-flash' },
  { provider: 'google-ai', model: 'gemini-3-pro-preview', contextWindow: 1_048_576, maxOutputTokens: 65_536, tokenizer: GEMINI_API, source: 'https://ai.google.dev/gemini-api/docs/models' },

  // ── vertex: Gemini counted by countTokens; partner Claude models estimated ───────────────
  { provider: 'vertex', model: '_default', contextWindow: 1_048_576, tokenizer: GEMINI_API, source: NEUROLINK },
  { provider: 'vertex', model: 'gemini-2.5-pro', contextWindow: 1_048_576, maxOutputTokens: 65_536, tokenizer: GEMINI_API, source: 'https://cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/2-5-pro' },
  { provider: 'vertex', model: 'gemini-2.5-flash', contextWindow: 1_048_576, maxOutputTokens: 65_536, tokenizer: GEMINI_API, source: 'https://cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/2-5-flash' },
  { provider: 'vertex', model: 'gemini-2.5-flash-lite', contextWindow: 1_048_576, maxOutputTokens: 65_536, tokenizer: GEMINI_API, source: 'https://cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/2-5-flash-lite' },
  { provider: 'vertex', model: 'gemini-2.0-flash', contextWindow: 1_048_576, maxOutputTokens: 8_192, tokenizer: GEMINI_API, source: 'https://cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/2-0-flash' },
  { provider: 'vertex', model: 'gemini-2.0-flash-lite', contextWindow: 1_048_576, maxOutputTokens: 8_192, tokenizer: GEMINI_API, source: 'https://cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/2-0-flash-lite' },
  { provider: 'vertex', model: 'gemini-1.5-pro', contextWindow: 2_097_152, maxOutputTokens: 8_192, tokenizer: GEMINI_API, source: NEUROLINK },
  { provider: 'vertex', model: 'gemini-1.5-flash', contextWindow: 1_048_576, maxOutputTokens: 8_192, tokenizer: GEMINI_API, source: NEUROLINK },
  { provider: 'vertex', model: 'gemini-3-flash-preview', contextWindow: 1_048_576, maxOutputTokens: 65_536, tokenizer: GEMINI_API, source: 'https://cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/3-flash' },
  { provider: 'vertex', model: 'gemini-3-pro-preview', contextWindow: 1_048_576, maxOutputTokens: 65_536, tokenizer: GEMINI_API, source: 'https://cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/3-pro' },
  // Any other 'claude-…' id on Vertex (ids look like 'claude-sonnet-4-5@20250929').
  { provider: 'vertex', model: 'claude', contextWindow: 200_000, tokenizer: HEURISTIC, source: CLAUDE_LEGACY },
  { provider: 'vertex', model: 'claude-3-5-haiku', contextWindow: 200_000, maxOutputTokens: 8_192, tokenizer: HEURISTIC, source: CLAUDE_LEGACY },
  { provider: 'vertex', model: 'claude-3-7-sonnet', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: HEURISTIC, source: CLAUDE_LEGACY },
  { provider: 'vertex', model: 'claude-sonnet-4', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: HEURISTIC, source: CLAUDE_LEGACY },
  { provider: 'vertex', model: 'claude-opus-4', contextWindow: 200_000, maxOutputTokens: 32_000, tokenizer: HEURISTIC, source: CLAUDE_LEGACY },
  { provider: 'vertex', model: 'claude-opus-4-1', contextWindow: 200_000, maxOutputTokens: 32_000, tokenizer: HEURISTIC, source: CLAUDE_LEGACY },
  { provider: 'vertex', model: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: HEURISTIC, source: 'https://platform.claude.com/docs/en/models/sonnet-4-5/overview' },
  { provider: 'vertex', model: 'claude-haiku-4-5', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: HEURISTIC, source: 'https://platform.claude.com/docs/en/models/haiku-4-5/overview' },
  { provider: 'vertex', model: 'claude-opus-4-5', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: HEURISTIC, source: 'https://platform.claude.com/docs/en/models/opus-4-5/overview' },
  { provider: 'vertex', model: 'claude-opus-4-6', contextWindow: 1_000_000, maxOutputTokens: 128_000, tokenizer: HEURISTIC, source: 'https://platform.claude.com/docs/en/models/opus-4-6/overview' },
  { provider: 'vertex', model: 'claude-sonnet-4-6', contextWindow: 1_000_000, maxOutputTokens: 128_000, tokenizer: HEURISTIC, source: 'https://platform.claude.com/docs/en/models/sonnet-4-6/overview' },
  { provider: 'vertex', model: 'claude-opus-4-7', contextWindow: 1_000_000, maxOutputTokens: 128_000, tokenizer: HEURISTIC, source: 'https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/partner-models/claude/opus-4-7' },

  // ── bedrock: estimated (no local tokenizer, no free count endpoint) ──────────────────────
  { provider: 'bedrock', model: '_default', contextWindow: 200_000, tokenizer: HEURISTIC, source: NEUROLINK },
  { provider: 'bedrock', model: 'anthropic.claude-3-5-sonnet-20241022-v2:0', contextWindow: 200_000, maxOutputTokens: 8_192, tokenizer: HEURISTIC, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'bedrock', model: 'anthropic.claude-3-5-haiku-20241022-v1:0', contextWindow: 200_000, maxOutputTokens: 8_192, tokenizer: HEURISTIC, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'bedrock', model: 'anthropic.claude-3-opus-20240229-v1:0', contextWindow: 200_000, maxOutputTokens: 4_096, tokenizer: HEURISTIC, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'bedrock', model: 'anthropic.claude-3-sonnet-20240229-v1:0', contextWindow: 200_000, maxOutputTokens: 4_096, tokenizer: HEURISTIC, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'bedrock', model: 'anthropic.claude-3-haiku-20240307-v1:0', contextWindow: 200_000, maxOutputTokens: 4_096, tokenizer: HEURISTIC, source: 'https://docs.anthropic.com/en/docs/about-claude/models/overview' },
  { provider: 'bedrock', model: 'amazon.nova-pro-v1:0', contextWindow: 300_000, tokenizer: HEURISTIC, source: NEUROLINK },
  { provider: 'bedrock', model: 'amazon.nova-lite-v1:0', contextWindow: 300_000, tokenizer: HEURISTIC, source: NEUROLINK },
  { provider: 'bedrock', model: 'anthropic.claude-3-7-sonnet-20250219-v1:0', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: HEURISTIC, source: CLAUDE_LEGACY },
  { provider: 'bedrock', model: 'anthropic.claude-sonnet-4-20250514-v1:0', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: HEURISTIC, source: CLAUDE_LEGACY },
  { provider: 'bedrock', model: 'anthropic.claude-opus-4-20250514-v1:0', contextWindow: 200_000, maxOutputTokens: 32_000, tokenizer: HEURISTIC, source: CLAUDE_LEGACY },
  { provider: 'bedrock', model: 'anthropic.claude-opus-4-1-20250805-v1:0', contextWindow: 200_000, maxOutputTokens: 32_000, tokenizer: HEURISTIC, source: CLAUDE_LEGACY },
  { provider: 'bedrock', model: 'anthropic.claude-sonnet-4-5-20250929-v1:0', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: HEURISTIC, source: 'https://platform.claude.com/docs/en/models/sonnet-4-5/overview' },
  { provider: 'bedrock', model: 'anthropic.claude-haiku-4-5-20251001-v1:0', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: HEURISTIC, source: 'https://platform.claude.com/docs/en/models/haiku-4-5/overview' },
  { provider: 'bedrock', model: 'anthropic.claude-opus-4-5-20251101-v1:0', contextWindow: 200_000, maxOutputTokens: 64_000, tokenizer: HEURISTIC, source: 'https://platform.claude.com/docs/en/models/opus-4-5/overview' },

  // ── azure (Azure OpenAI): OpenAI models under their OpenAI names, local tiktoken ─────────
  { provider: 'azure', model: '_default', contextWindow: 128_000, tokenizer: O200K, source: NEUROLINK },
  { provider: 'azure', model: 'gpt-4o', contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: O200K, source: 'https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/models' },
  { provider: 'azure', model: 'gpt-4o-mini', contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: O200K, source: 'https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/models' },
  { provider: 'azure', model: 'gpt-4-turbo', contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: CL100K, source: 'https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/models' },
  { provider: 'azure', model: 'gpt-4', contextWindow: 8_192, maxOutputTokens: 8_192, tokenizer: CL100K, source: 'https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/models' },
  { provider: 'azure', model: 'gpt-35-turbo', contextWindow: 16_385, maxOutputTokens: 4_096, tokenizer: CL100K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-35-turbo-0301', contextWindow: 4_096, maxOutputTokens: 4_096, tokenizer: CL100K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-35-turbo-0613', contextWindow: 4_096, maxOutputTokens: 4_096, tokenizer: CL100K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-35-turbo-16k', contextWindow: 16_384, maxOutputTokens: 4_096, tokenizer: CL100K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-35-turbo-instruct', contextWindow: 4_097, maxOutputTokens: 4_097, tokenizer: CL100K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-4-32k', contextWindow: 32_768, tokenizer: CL100K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-4.1', contextWindow: 1_047_576, maxOutputTokens: 32_768, tokenizer: O200K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-4.1-mini', contextWindow: 1_047_576, maxOutputTokens: 32_768, tokenizer: O200K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-4.1-nano', contextWindow: 1_047_576, maxOutputTokens: 32_768, tokenizer: O200K, source: AZURE_MODELS },
  { provider: 'azure', model: 'o1', contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: O200K, source: AZURE_MODELS },
  { provider: 'azure', model: 'o3', contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: O200K, source: AZURE_MODELS },
  { provider: 'azure', model: 'o3-mini', contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: O200K, source: AZURE_MODELS },
  { provider: 'azure', model: 'o4-mini', contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: O200K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-5', contextWindow: 400_000, maxOutputTokens: 128_000, maxInputTokens: 272_000, tokenizer: O200K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-5-mini', contextWindow: 400_000, maxOutputTokens: 128_000, maxInputTokens: 272_000, tokenizer: O200K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-5-nano', contextWindow: 400_000, maxOutputTokens: 128_000, maxInputTokens: 272_000, tokenizer: O200K, source: AZURE_MODELS },
  { provider: 'azure', model: 'gpt-5-chat', contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: O200K, source: AZURE_MODELS },

  // ── mistral ───────────────────────────────────────────────────────────────────────────────
  { provider: 'mistral', model: '_default', contextWindow: 128_000, tokenizer: HEURISTIC, source: NEUROLINK },
  { provider: 'mistral', model: 'mistral-large-latest', contextWindow: 128_000, tokenizer: HEURISTIC, source: NEUROLINK },
  // Corrected from NeuroLink's registry (32,000, the retired Mistral Medium 1): see README "Data sources".
  { provider: 'mistral', model: 'mistral-medium-latest', contextWindow: 128_000, tokenizer: HEURISTIC, source: MISTRAL_MEDIUM },
  { provider: 'mistral', model: 'mistral-small-latest', contextWindow: 128_000, tokenizer: HEURISTIC, source: NEUROLINK },
  { provider: 'mistral', model: 'codestral-latest', contextWindow: 256_000, tokenizer: HEURISTIC, source: NEUROLINK },

  // ── self-hosted and gateways: only a provider default ────────────────────────────────────
  { provider: 'ollama', model: '_default', contextWindow: 128_000, tokenizer: HEURISTIC, source: NEUROLINK },
  { provider: 'litellm', model: '_default', contextWindow: 128_000, tokenizer: HEURISTIC, source: NEUROLINK },
  { provider: 'huggingface', model: '_default', contextWindow: 32_000, tokenizer: HEURISTIC, source: NEUROLINK },
  { provider: 'sagemaker', model: '_default', contextWindow: 128_000, tokenizer: HEURISTIC, source: NEUROLINK },
]);
