import type { ContentPart, ExtractedFact, Message, MessageInput } from '@ctxguard/core';

/** Facts merged in order, one per key and value (the first spelling wins); `span` kept from the first that has one. */
export function mergeFacts(...lists: readonly (readonly ExtractedFact[] | undefined)[]): ExtractedFact[] {
  return mergeFactLists(lists);
}

/**
 * {@link mergeFacts} over a list of lists of any length: one per message or per chunk of a long
 * transcript can be more than a call takes arguments, so never spread them into `mergeFacts`.
 */
export function mergeFactLists(lists: readonly (readonly ExtractedFact[] | undefined)[]): ExtractedFact[] {
  const seen = new Map<string, ExtractedFact>();
  for (const list of lists) {
    for (const fact of list ?? []) {
      const id = `${fact.key}\u0000${fact.value}`;
      const known = seen.get(id);
      if (!known) seen.set(id, { ...fact });
      else if (known.span === undefined && fact.span !== undefined) known.span = fact.span;
    }
  }
  return [...seen.values()];
}

/** The facts of `pinned` that neither `facts` nor `text` still holds (by value). */
export function missingFacts(
  pinned: readonly ExtractedFact[],
  facts: readonly ExtractedFact[],
  text: string,
): ExtractedFact[] {
  const values = new Set(facts.map((fact) => fact.value));
  return pinned.filter((fact) => !values.has(fact.value) && !text.includes(fact.value));
}

function redactPart(part: ContentPart, redact: (text: string) => string): ContentPart {
  if (part.type === 'text') return { ...part, text: redact(part.text) };
  if (part.type === 'tool-result' && typeof part.output === 'string') {
    return { ...part, output: redact(part.output) } as ContentPart;
  }
  return part;
}

/** A copy of `message` whose text (string content, text parts, string tool outputs) went through `redact`. */
export function redactMessage<T extends Message | MessageInput>(
  message: T,
  redact: (text: string) => string,
): T {
  const content = (message as { content: unknown }).content;
  if (typeof content === 'string') return { ...message, content: redact(content) };
  if (Array.isArray(content)) {
    return { ...message, content: content.map((part: ContentPart) => redactPart(part, redact)) } as T;
  }
  return message;
}
