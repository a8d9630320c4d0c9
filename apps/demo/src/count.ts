import type { Message } from '@ctxguard/core';
import { HybridTokenCounter, measureConversation } from '@ctxguard/token-counter';

let counter: HybridTokenCounter | undefined;

/**
 * Counts a conversation the way ctxguard routes it: exact BPE for OpenAI models, the
 * calibrated heuristic elsewhere (no count-API keys in the demo, so it stays offline).
 */
export async function countConversation(
  messages: Message[],
  provider: string,
  model: string,
): Promise<{ tokens: number; accuracy: 'estimate' | 'exact' }> {
  counter ??= new HybridTokenCounter();
  const { tokens, accuracy } = await measureConversation(
    counter,
    { messages },
    { provider, model },
    { accuracy: 'exact' },
  );
  return { tokens, accuracy };
}

/** Frees the exact encoders. */
export function disposeCounter(): void {
  counter?.dispose?.();
}
