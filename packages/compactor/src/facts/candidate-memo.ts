import type { FactCategory } from '@ctxguard/core';
import { sha256Hex } from '@ctxguard/token-counter';
import { LRUCache } from 'lru-cache';
import { redactSecrets } from '../rewrites/redact-secrets.js';
import { type Candidate, factCandidates } from './fact-extractors.js';
import { splitTranscriptMessages } from './transcript.js';

/**
 * Fact candidates of texts seen before, by settings and a digest of the text (the text itself is
 * not kept; with `redact` the candidates hold no secret either): the extraction is deterministic, and a compaction re-reads the
 * same tool outputs and messages every time it runs over the originals. Bounded by the size of the
 * candidates it keeps (about 8 MB).
 */
const candidatesSeen = /* @__PURE__ */ new LRUCache<string, readonly Candidate[]>({
  maxSize: 8_000_000,
  sizeCalculation: (candidates, key) =>
    key.length + candidates.reduce((sum, c) => sum + 96 + 2 * (c.value.length + (c.span?.length ?? 0)), 0),
});

/**
 * Digests of texts read once: a text's candidates join {@link candidatesSeen} only when it comes
 * again (a message or tool output every compaction reads anew), never for a text read once.
 * Holds keys only, about 0.5 MB at most.
 */
const readOnce = /* @__PURE__ */ new LRUCache<string, true>({
  maxSize: 512_000,
  sizeCalculation: (_seen, key) => key.length + 64,
});

/**
 * A string with storage of its own. A slice of a long text may share that text's memory (V8 keeps
 * the whole of it alive for a short slice): a candidate kept in {@link candidatesSeen} must not
 * hold a whole transcript.
 */
function ownString(text: string): string {
  return ` ${text}`.slice(1);
}

function detached(candidate: Candidate): Candidate {
  const copy: Candidate = { ...candidate, value: ownString(candidate.value) };
  if (candidate.span !== undefined) copy.span = ownString(candidate.span);
  return copy;
}

/** The text's SHA-256 and length: keys the memo without keeping the text. */
function textDigest(text: string): string {
  return `${text.length}:${sha256Hex(text)}`;
}

export interface CandidateSettings {
  redact: boolean;
  maxFactLength: number;
  categories?: readonly FactCategory[] | undefined;
  signal?: AbortSignal | undefined;
}

function candidateKey(text: string, settings: CandidateSettings): string {
  return `${settings.redact}|${settings.maxFactLength}|${settings.categories?.join(',') ?? '*'}|${textDigest(text)}`;
}

/** The candidates of one text, scanned once per settings (kept for next time unless `remember` is false). */
export function candidatesOf(
  text: string,
  settings: CandidateSettings,
  key = candidateKey(text, settings),
  remember = true,
): readonly Candidate[] {
  let candidates = candidatesSeen.get(key);
  if (candidates === undefined) {
    candidates = factCandidates(settings.redact ? redactSecrets(text) : text, {
      categories: settings.categories,
      signal: settings.signal,
      maxFacts: Number.POSITIVE_INFINITY,
      maxValueLength: settings.maxFactLength,
    }).map(detached);
    if (remember) candidatesSeen.set(key, candidates);
  }
  return candidates;
}

/**
 * The candidates of each message of a transcript (text before the first header is one more): the
 * extractor scans messages one by one, so these, merged in order, are the candidates of the whole.
 */
export function transcriptCandidates(text: string, settings: CandidateSettings): (readonly Candidate[])[] {
  return splitTranscriptMessages(text).map((message) => pieceCandidates(message, settings));
}

/**
 * The candidates of one message of a transcript, through the memo: kept from its second reading
 * (a compaction reads again the messages the one before it read and a few new ones, never a joined
 * text twice).
 */
export function pieceCandidates(text: string, settings: CandidateSettings): readonly Candidate[] {
  const key = candidateKey(text, settings);
  const known = candidatesSeen.get(key);
  if (known !== undefined) return known;
  const again = readOnce.has(key);
  if (!again) readOnce.set(key, true);
  return candidatesOf(text, settings, key, again);
}
