import type { Message } from '@ctxguard/core';

/** Provider options that mark a prompt-cache breakpoint (Anthropic's and OpenRouter's, Bedrock's). */
const CACHE_MARKER_KEYS = new Set(['cacheControl', 'cache_control', 'cachePoint']);

/**
 * A copy of a stored message without prompt-cache breakpoints. A stored copy carries the
 * breakpoints the app put on it when it was sent (the newest message, usually); the app has moved
 * them since, and a provider refuses more than a few (Anthropic: 4). The app's breakpoints of this
 * request are on its own message objects, which are sent as given.
 */
export function storedCopyWithoutCacheMarkers(message: Message): Message {
  const copy = structuredClone(message) as Message & { providerOptions?: unknown };
  dropCacheMarkers(copy.providerOptions);
  if (Array.isArray(copy.content))
    for (const part of copy.content)
      dropCacheMarkers((part as { providerOptions?: unknown }).providerOptions);
  return copy;
}

function dropCacheMarkers(providerOptions: unknown): void {
  if (typeof providerOptions !== 'object' || providerOptions === null) return;
  for (const options of Object.values(providerOptions))
    if (typeof options === 'object' && options !== null)
      for (const key of Object.keys(options))
        if (CACHE_MARKER_KEYS.has(key)) delete options[key as keyof typeof options];
}
