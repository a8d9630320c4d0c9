import type { ContentPart, ContextTools, Message } from '@ctxguard/core';
import { isRecord, partsOf, roleOf } from '@ctxguard/shared';
import { isMedia, mediaPlaceholder } from '../budget/media-bytes.js';
import type { TokenMeter } from '../budget/token-meter.js';
import { extractFactsSafely, missingFrom, selectFacts } from '../facts/fact-ledger.js';
import { renderFactsBlock } from '../facts/facts-block.js';
import { withParts } from '../messages/message-parts.js';
import { redactSecrets } from '../rewrites/redact-secrets.js';
import { clipText, forSummarizer, protectedHeadEnd, stripBase64 } from '../rewrites/summarize-messages.js';

/** A tool input with every string in it clipped to `maxChars`. */
function clipToolInput(input: unknown, maxChars: number): unknown {
  if (typeof input === 'string') return input.length > maxChars ? clipText(input, maxChars) : input;
  if (Array.isArray(input)) return input.map((item) => clipToolInput(item, maxChars));
  if (isRecord(input)) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) out[key] = clipToolInput(value, maxChars);
    return out;
  }
  return input;
}

/**
 * The texts of a message's own text parts (not attached files), as the summarizer sees them, when
 * together they fit `maxChars`.
 */
function ownWords(message: Message, maxChars: number): Set<string> {
  const texts = ownTexts(message);
  const length = texts.reduce((sum, text) => sum + text.length, 0);
  return length > 0 && length <= maxChars ? new Set(texts) : new Set();
}

/** A message's own text parts (not attached files), as the summarizer sees them; none for string content. */
function ownTexts(message: Message): string[] {
  if (typeof message.content === 'string') return [];
  return partsOf(message).flatMap((part) =>
    isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? [stripBase64(part.text)] : [],
  );
}

/** `text` summarized with its facts into about `maxChars`, headed by what it was. */
async function compactedText(
  text: string,
  role: string,
  maxChars: number,
  tools: ContextTools,
  signal: AbortSignal | undefined,
  counter: { calls: number },
): Promise<string> {
  const header = `[${role} message compacted from ${text.length} characters to fit the context]`;
  if (maxChars < 120) return header;
  let summary = '';
  try {
    counter.calls++;
    summary = await tools.summarize({
      content: text,
      maxLength: Math.floor(maxChars * 0.45),
      ...(signal ? { signal } : {}),
    });
  } catch {
    // The text's opening stands in for the summary (below).
  }
  // A summarizer that failed, or found nothing worth keeping in the room, leaves the text's opening
  // rather than a header alone.
  if (summary.trim() === '') summary = clipText(text, Math.floor(maxChars * 0.45));
  const found = await extractFactsSafely(tools, text, { signal });
  counter.calls += found.calls;
  const facts = selectFacts(missingFrom(found.facts, summary), Math.floor(maxChars * 0.45), 'shared');
  return `${header}\n${redactSecrets(clipText(summary, Math.floor(maxChars * 0.5)))}${
    facts.length > 0 ? `\n${renderFactsBlock(facts)}` : ''
  }`;
}

/** `body` and then as much of `text`'s opening, verbatim, as keeps them within `maxTokens`. */
function withOpening(body: string, text: string, maxTokens: number, meter: TokenMeter): string {
  const charsPerToken = text.length / Math.max(1, meter.text(text));
  let room = maxTokens - meter.text(body) - 1;
  // The opening's own density may differ from the whole text's: measured, and cut again when over.
  for (let attempt = 0; attempt < 3 && room >= 1; attempt++) {
    const opening = clipText(text, Math.floor(room * charsPerToken));
    if (opening === '') return body;
    const filled = `${body}\n${opening}`;
    const tokens = meter.text(filled);
    if (tokens <= maxTokens) return filled;
    room = Math.floor((room * maxTokens) / tokens) - 1;
  }
  return body;
}

/**
 * A message shrunk in place to about `maxTokens`: media become placeholders, long text is
 * summarized (with its facts) by the tools, tool inputs and outputs are clipped. Same role, same
 * tool-call ids, so pairs stay whole. The newest message (what the model acts on next) also keeps
 * as much of its text's opening, verbatim, as its tokens allow; an older one leaves that room to
 * the facts digest, which carries more of the conversation.
 */
async function shrinkMessage(
  message: Message,
  maxTokens: number,
  meter: TokenMeter,
  tools: ContextTools,
  signal: AbortSignal | undefined,
  counter: { calls: number },
  newest: boolean,
): Promise<Message> {
  const maxChars = Math.max(120, Math.floor(maxTokens * 3));
  const role = roleOf(message);
  const original = forSummarizer(message);
  let parts: unknown[] =
    typeof original.content === 'string'
      ? [{ type: 'text', text: original.content }]
      : [...partsOf(original)];
  parts = parts.map((part) => (isMedia(part) ? mediaPlaceholder(part) : part));
  const textParts = parts.filter((part) => isRecord(part) && part.type === 'text') as {
    type: 'text';
    text: string;
  }[];
  // A user's own words (the task beside an attached file) stay as written while they fit the
  // allowance; the rest (attachments, or all of a long message) is summarized in what is left, down
  // to its one-line header when the words take it all.
  const own = role === 'user' ? ownWords(message, maxChars) : new Set<string>();
  const room = maxChars - [...own].reduce((sum, words) => sum + words.length, 0);
  const text = textParts
    .filter((part) => !own.has(part.text))
    .map((part) => part.text)
    .join('\n');
  const compacted =
    text.length > room && (role === 'user' || role === 'assistant')
      ? await compactedText(text, role, room, tools, signal, counter)
      : undefined;
  const sized =
    compacted !== undefined && newest
      ? withOpening(compacted, redactSecrets(text), Math.floor(room / 3), meter)
      : compacted;
  // Only what it shortens: a header may be longer than a short placeholder it would replace.
  // Sized in tokens already: the clipping below leaves it as it is.
  const placed =
    sized !== undefined && sized.length < text.length ? { type: 'text', text: sized } : undefined;
  if (placed !== undefined) {
    let done = false;
    parts = parts.flatMap((part) => {
      if (!isRecord(part) || part.type !== 'text' || own.has(part.text as string)) return [part];
      if (done) return [];
      done = true;
      return [placed];
    });
  }
  const share = Math.max(80, Math.floor(maxChars / Math.max(1, parts.length)));
  parts = parts.map((part) => {
    if (!isRecord(part) || part === placed) return part;
    if (
      part.type === 'reasoning' &&
      typeof part.text === 'string' &&
      part.text.length > share &&
      !part.signature
    ) {
      return { ...part, text: clipText(part.text, share) };
    }
    if (part.type === 'text' && typeof part.text === 'string' && part.text.length > maxChars) {
      return { ...part, text: clipText(part.text, maxChars) };
    }
    if (part.type === 'tool-call') return { ...part, input: clipToolInput(part.input, share) };
    if (part.type === 'tool-result') {
      const { content: _content, ...rest } = part;
      const output = typeof part.output === 'string' ? part.output : JSON.stringify(part.output ?? null);
      return { ...rest, output: clipText(output, share) };
    }
    return part;
  });
  if (role === 'system') return message;
  const next = withParts(message, parts as ContentPart[]);
  return meter.message(next) < meter.message(message) ? next : message;
}

/**
 * Where the last resort shrinks, in order: the non-system messages after the protected head (system
 * prompt, provider compaction item), largest first, so each is cut only as far as the list needs;
 * the first user message (the task) and the newest message, which the model acts on next, come after
 * every other, the larger of the two first: neither is cut while older messages can make the room,
 * and a short task is not cut to make room beside a long newest paste. A task that carries files or
 * images goes first instead: those go before anything else is cut, and its own words stay.
 */
function shrinkOrder(
  work: readonly Message[],
  meter: TokenMeter,
): { order: number[]; firstUser: number; attachedTask: boolean } {
  const start = protectedHeadEnd(work);
  const firstUser = work.findIndex((message, index) => index >= start && roleOf(message) === 'user');
  const bySize = work
    .map((message, index) => ({ index, tokens: meter.message(message) }))
    .filter(({ index }) => index >= start && roleOf(work[index]) !== 'system')
    .sort((a, b) => b.tokens - a.tokens)
    .map(({ index }) => index);
  const kept = new Set([firstUser, work.length - 1]);
  const order = [...bySize.filter((index) => !kept.has(index)), ...bySize.filter((index) => kept.has(index))];
  if (firstUser === -1 || !hasAttachments(work[firstUser]!)) return { order, firstUser, attachedTask: false };
  return {
    order: [firstUser, ...order.filter((index) => index !== firstUser)],
    firstUser,
    attachedTask: true,
  };
}

/**
 * The message shrunk to `target` tokens. Shrinking sizes text at three characters a token, so a
 * denser text comes out over its target: it is shrunk again, from the original, to a target lowered
 * by the overshoot (twice at most; never below `floor`).
 */
async function shrunkTo(
  target: number,
  floor: number,
  meter: TokenMeter,
  shrink: (target: number) => Promise<Message>,
): Promise<Message> {
  let shrunk = await shrink(target);
  for (let attempt = 0, aim = target; attempt < 2 && aim > floor; attempt++) {
    const tokens = meter.message(shrunk);
    if (tokens <= target) break;
    aim = Math.max(floor, Math.floor((aim * target) / tokens));
    shrunk = await shrink(aim);
  }
  return shrunk;
}

/** Tokens that keep a message's own text parts whole beside placeholders (3 characters a token, as {@link shrinkMessage} counts). */
function ownWordsTokens(message: Message): number {
  return 60 + Math.ceil(ownTexts(message).reduce((sum, text) => sum + text.length, 0) / 3);
}

function hasAttachments(message: Message): boolean {
  return partsOf(message).some(isMedia);
}

/**
 * The list with its messages shrunk in place in {@link shrinkOrder} until it fits `budget`: how many
 * changed, and where the first user message is (-1 when none). A message with an entry in
 * `replacements` takes it instead of being shrunk.
 */
export async function shrinkUntilFits(
  work: readonly Message[],
  budget: number,
  meter: TokenMeter,
  tools: ContextTools,
  signal: AbortSignal | undefined,
  counter: { calls: number },
  replacements: ReadonlyMap<number, Message> = new Map(),
): Promise<{ messages: Message[]; messagesCompacted: number; firstUser: number }> {
  const { order, firstUser, attachedTask } = shrinkOrder(work, meter);
  const next = work.slice();
  let count = 0;
  for (const index of order) {
    if (meter.total(next) <= budget) break;
    const message = next[index]!;
    const others = meter.total(next) - meter.message(message);
    // The task goes first only for its attachments: its own words keep their room.
    const floor = attachedTask && index === firstUser ? ownWordsTokens(message) : 60;
    const shrink = (target: number) =>
      shrinkMessage(message, target, meter, tools, signal, counter, index === work.length - 1);
    const shrunk =
      replacements.get(index) ?? (await shrunkTo(Math.max(floor, budget - others), floor, meter, shrink));
    if (shrunk !== message) {
      next[index] = shrunk;
      count++;
    }
  }
  return { messages: next, messagesCompacted: count, firstUser };
}
