import { type Message, withSystemPrompt } from '@ctxguard/core';
import { utf8Length } from '@ctxguard/shared';
import { conversationOverhead, messageTokens, toolDefinitionsTokens } from '@ctxguard/token-counter';

interface BoundedRequest {
  provider: string;
  model: string;
  messages: readonly Message[];
  system?: string | undefined;
  tools?: readonly unknown[] | undefined;
}

/**
 * The most tokens any byte-level BPE count (tiktoken's encodings among them) can give a request:
 * a token stands for at least one UTF-8 byte, so each text is counted as its UTF-8 length, with
 * the same per-message and per-tool costs as a count. With `anchorIndex` at or past 0, only the
 * messages after it, on top of the `usageTokens` reported for the rest.
 */
export function byteBound(
  request: BoundedRequest,
  anchor: { anchorIndex: number; usageTokens: number },
): number {
  const options = { provider: request.provider, model: request.model, countText: utf8Length };
  const list = withSystemPrompt(request.messages, request.system);
  const anchored = anchor.anchorIndex >= 0;
  let total = anchored ? anchor.usageTokens : conversationOverhead(request.provider);
  for (const message of anchored ? list.slice(anchor.anchorIndex + 1) : list)
    total += messageTokens(message, options);
  if (!anchored && request.tools && request.tools.length > 0)
    total += toolDefinitionsTokens(request.tools, utf8Length, { model: request.model });
  return total;
}
