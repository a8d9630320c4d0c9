import { lightTrimMessages, renderTranscript } from '@ctxguard/compactor';
import type { ExtractedFact, HistoryEntry, ReactContext } from '@ctxguard/core';
import { containsWhole, pushAll } from '@ctxguard/shared';
import { requestOverhead } from './budget-figures.js';
import { cutOutputsTo, largestFittingCut } from './recent-shrink.js';

/** What {@link cutNewOutputs} did. */
export interface NewOutputCut {
  /** Tool messages rewritten with their outputs cut. */
  trimmedMessages: number;
  /** The cut per tool output, in UTF-8 bytes. */
  bytes: number;
  /** Facts of the cut middles the cut outputs no longer show. */
  cutFacts: ExtractedFact[];
}

/** Index of the first message after the model's newest answer, or undefined when nothing follows it. */
export function sinceLastAnswer(view: readonly HistoryEntry[], pinned: number): number | undefined {
  for (let index = view.length - 1; index >= pinned; index--) {
    if (view[index]!.message.role === 'assistant') return index + 1 < view.length ? index + 1 : undefined;
  }
  return undefined;
}

/**
 * Cuts only the tool outputs that arrived since the model's newest answer to their head and tail,
 * at the largest size per output that brings the request down to `goal` tokens, and returns the
 * facts of the cut middles that the cut outputs no longer show. Each message is replaced in place
 * (its calls keep their results), so everything before it — the request the model last answered —
 * stays byte for byte and the provider's prompt cache still covers it. With `from`, the outputs
 * from that index on instead. Undefined, with nothing changed, when no cut gets the request to `goal`.
 */
export async function cutNewOutputs(
  ctx: ReactContext,
  view: readonly HistoryEntry[],
  pinned: number,
  options: { goal: number; from?: number | undefined },
): Promise<NewOutputCut | undefined> {
  const { tools } = ctx;
  const start = options.from ?? sinceLastAnswer(view, pinned);
  if (start === undefined) return undefined;
  const arrived = view.slice(start);
  const messages = arrived.map((entry) => entry.message);
  if (!messages.some((message) => message.role === 'tool')) return undefined;
  const cutTo = (bytes: number) => lightTrimMessages(messages, cutOutputsTo(bytes)).messages;
  const before = requestOverhead(ctx, view) + tools.measure(view.slice(0, start));
  const fits = (bytes: number) => before + tools.measure(cutTo(bytes)) <= options.goal;
  const bytes = largestFittingCut(messages, fits);
  if (bytes === undefined) return undefined;
  const cut = cutTo(bytes);
  // At the smallest cut the request may still be over `goal`: then this is not the way.
  if (before + tools.measure(cut) > options.goal) return undefined;
  const changed = cut.flatMap((message, offset) => (message === messages[offset] ? [] : [offset]));
  // Read before rewriting: a failing fact extractor leaves the history as it was.
  const facts = await Promise.all(
    changed.map((offset) => tools.extractFacts({ entries: [arrived[offset]!], signal: ctx.signal })),
  );
  const result: NewOutputCut = { trimmedMessages: 0, bytes, cutFacts: [] };
  changed.forEach((offset, index) => {
    const message = cut[offset]!;
    if (!tools.replaceRange(start + offset, start + offset + 1, message).changed) return;
    result.trimmedMessages++;
    const shown = renderTranscript([message]);
    pushAll(
      result.cutFacts,
      facts[index]!.filter((fact) => !containsWhole(shown, fact.value)),
    );
  });
  return result.trimmedMessages > 0 ? result : undefined;
}
