import type { LanguageModelV3Usage } from '@ai-sdk/provider';
import type { Usage } from '@ctxguard/core';

/**
 * Core usage from the AI SDK's: `inputTokens` is the whole prompt (cache reads and writes
 * included), as the AI SDK 6 providers report it. Undefined when the provider reported no input count.
 */
export function coreUsage(
  usage: LanguageModelV3Usage | undefined,
  clearedInputTokens = 0,
): Usage | undefined {
  const input = usage?.inputTokens.total;
  if (usage === undefined || input === undefined) return undefined;
  const out: Usage = { inputTokens: input + clearedInputTokens, outputTokens: usage.outputTokens.total ?? 0 };
  if (usage.inputTokens.cacheRead !== undefined) out.cachedInputTokens = usage.inputTokens.cacheRead;
  if (usage.inputTokens.cacheWrite !== undefined) out.cacheWriteInputTokens = usage.inputTokens.cacheWrite;
  if (usage.outputTokens.reasoning !== undefined) out.reasoningTokens = usage.outputTokens.reasoning;
  return out;
}
