import type { Message } from '@ctxguard/core';
import { containsWhole, roleOf } from '@ctxguard/shared';
import type { TokenMeter } from '../budget/token-meter.js';
import {
  chooseDigestFacts,
  type DigestFact,
  digestCost,
  rankDigestFacts,
  renderFactDigest,
  visibleText,
} from '../facts/fact-digest.js';
import { neutralizeMarkers, parseTruncationMarker } from '../facts/markers.js';
import { offlineCandidatesOf } from '../facts/offline-context-tools.js';
import { isSummaryText, parseSummary, renderSummary } from '../facts/summary-format.js';
import { readableText } from '../messages/message-parts.js';
import { truncationMarkerMessage } from '../rewrites/sliding-window.js';
import { protectedHeadEnd, renderForSummarizer } from '../rewrites/summarize-messages.js';

/**
 * The summaries and truncation markers this run wrote (not those of the input), summaries first:
 * where a digest of hidden facts may go.
 */
export function digestHosts(work: readonly Message[], input: ReadonlySet<Message>): number[] {
  const summaries: number[] = [];
  const markers: number[] = [];
  for (let index = 0; index < work.length; index++) {
    const message = work[index]!;
    if (input.has(message) || roleOf(message) === 'tool') continue;
    const text = readableText(message);
    if (isSummaryText(text)) summaries.push(index);
    else if (roleOf(message) === 'system' && parseTruncationMarker(text)) markers.push(index);
  }
  return [...summaries, ...markers];
}

/** A summary reduced to its headline, a marker to the bare marker: the digest says the rest for less. */
export function bareHost(message: Message): Message {
  const text = readableText(message);
  const summary = parseSummary(text);
  if (summary)
    return {
      ...message,
      content: renderSummary({ text: '', messageCount: summary.messageCount }),
    } as Message;
  const marker = parseTruncationMarker(text);
  return marker
    ? ({ ...message, content: truncationMarkerMessage(marker.hiddenCount).content } as Message)
    : message;
}

/** The host with the digest appended (inside a summary's text, or after a marker). */
function withDigest(message: Message, digest: string): Message {
  const text = readableText(message);
  const summary = parseSummary(text);
  if (summary) {
    return {
      ...message,
      content: renderSummary({ ...summary, text: `${summary.text}\n${digest}` }),
    } as Message;
  }
  return { ...message, content: `${text}\n${neutralizeMarkers(digest)}` } as Message;
}

/**
 * Uses the room a compaction left under the budget: the facts of the input that the output no
 * longer shows (from pruned outputs, summarized or hidden messages), best first, join the summary
 * (or the truncation marker) as a dense digest, as many as fit.
 */
export async function fillWithDigest(
  input: readonly Message[],
  work: Message[],
  budget: number,
  meter: TokenMeter,
  candidates: readonly DigestFact[],
): Promise<{ messages: Message[]; retained: number }> {
  const hosts = digestHosts(work, new Set(input));
  if (hosts.length === 0 || candidates.length === 0) return { messages: work, retained: -1 };
  const host = hosts[0]!;
  // As written, or, where room is short, every summary and marker bare and the digest saying it all
  // (the same facts cost a fraction as a digest of the bullets and file lists).
  const lean = work.slice();
  for (const index of hosts) lean[index] = bareHost(work[index]!);
  let best = work;
  let bestScore = -1;
  for (const base of [work, lean]) {
    if (meter.total(base) > budget) continue;
    const filled = fillHost(base, host, budget, meter, candidates);
    const score = retainedFacts(filled, candidates);
    if (score > bestScore) {
      best = filled;
      bestScore = score;
    }
  }
  return { messages: best, retained: bestScore };
}

/** How many of `facts` the messages still show (verbatim, as whole tokens). */
export function retainedFacts(messages: readonly Message[], facts: readonly DigestFact[]): number {
  const text = visibleText(messages);
  let count = 0;
  for (const fact of facts) if (containsWhole(text, fact.value)) count++;
  return count;
}

/** Whether `messages` show every one of `facts` that `before` showed. */
export function showsEveryFact(
  messages: readonly Message[],
  before: readonly Message[],
  facts: readonly DigestFact[],
): boolean {
  const text = visibleText(messages);
  const earlier = visibleText(before);
  return facts.every((fact) => !containsWhole(earlier, fact.value) || containsWhole(text, fact.value));
}

/** The list with as many of the best facts in a digest on `host` as fit `budget` (a few tries at the size). */
function fillHost(
  work: Message[],
  host: number,
  budget: number,
  meter: TokenMeter,
  candidates: readonly DigestFact[],
): Message[] {
  const room = budget - meter.total(work);
  if (room < 16) return work;
  const ranked = rankDigestFacts(candidates, visibleText(work));
  if (ranked.length === 0) return work;
  const original = work[host]!;
  const baseTokens = meter.total(work);
  let chars = Math.floor(room * 3);
  let best = work;
  for (let attempt = 0; attempt < 8 && chars > 0; attempt++) {
    const chosen = chooseDigestFacts(ranked, chars);
    if (chosen.length === 0) break;
    let used = 0;
    for (const fact of chosen) used += digestCost(fact);
    const next = work.slice();
    next[host] = withDigest(original, renderFactDigest(chosen));
    const total = meter.total(next);
    if (total <= budget) {
      best = next;
      if (budget - total < Math.max(8, budget * 0.01) || used < chars * 0.9) break;
      chars = Math.floor(chars * (1 + ((budget - total) / Math.max(1, total - baseTokens)) * 0.9));
    } else {
      if (best !== work) break;
      chars = Math.floor(
        chars * Math.max(0.2, ((budget - baseTokens) / Math.max(1, total - baseTokens)) * 0.95),
      );
    }
  }
  return best;
}

/** Facts of the input (after the protected head) that a digest may restore, from the offline extractor. */
export async function inputFacts(input: readonly Message[]): Promise<DigestFact[]> {
  const start = protectedHeadEnd(input);
  // Message by message: each original is scanned once however many compactions read it again.
  try {
    return rankDigestFacts(offlineCandidatesOf(input.slice(start), renderForSummarizer, 20_000), '');
  } catch {
    return []; // the digest is an extra: a failing extractor leaves the room empty
  }
}
