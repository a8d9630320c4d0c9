import {
  type ContextTools,
  type ExtractedFact,
  type FactCategory,
  type Message,
  parseOptions,
  throwIfAborted,
} from '@ctxguard/core';
import { sha256Hex } from '@ctxguard/token-counter';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { summarizeExtractively } from '../rewrites/extractive-summary.js';
import { redactSecrets } from '../rewrites/redact-secrets.js';
import { parseExtractFactsRequest, parseSummarizeRequest } from './context-tools.js';
import { type Candidate, factCandidates, rankedFacts } from './fact-extractors.js';

const DEFAULT_MAX_FACT_LENGTH = 300;

/** Schema of {@link OfflineContextToolsOptions}. */
export const offlineContextToolsOptionsSchema = z.object({
  /** Most facts one `extractFacts` call returns; errors, commands, paths and versions are kept first (default 400). */
  maxFacts: z.number().int().positive().default(400),
  /** Longer fact values (error lines, decisions) become a verbatim slice of this many characters (default 300). */
  maxFactLength: z.number().int().min(20).default(DEFAULT_MAX_FACT_LENGTH),
  /** Longest line a summary keeps; longer ones are cut at a word (default 300). */
  maxSummaryLineLength: z.number().int().min(20).default(300),
  /** Most files listed per list in a summary (default 40). */
  maxFilesListed: z.number().int().positive().default(40),
  /**
   * Share of a summary's `maxLength` (0–1) a digest of the summarized facts may take — error
   * lines and commands one per line, paths, versions and figures comma-separated — before the key
   * lines (default 0.5; 0: no digest).
   */
  summaryDigestShare: z.number().min(0).max(1).default(0.5),
  /** Redact secrets before summarizing or extracting (default true). */
  redact: z.boolean().default(true),
});

/**
 * Fact candidates of texts seen before, by settings and a digest of the text (the text itself is
 * not kept; with `redact` the candidates hold no secret either): the extraction is deterministic, and a compaction re-reads the
 * same tool outputs and messages every time it runs over the originals. Bounded by the size of the
 * candidates it keeps (about 8 MB).
 */
const candidatesSeen = new LRUCache<string, readonly Candidate[]>({
  maxSize: 8_000_000,
  sizeCalculation: (candidates, key) =>
    key.length + candidates.reduce((sum, c) => sum + 96 + 2 * (c.value.length + (c.span?.length ?? 0)), 0),
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

interface CandidateSettings {
  redact: boolean;
  maxFactLength: number;
  categories?: readonly FactCategory[] | undefined;
  signal?: AbortSignal | undefined;
}

function candidateKey(text: string, settings: CandidateSettings): string {
  return `${settings.redact}|${settings.maxFactLength}|${settings.categories?.join(',') ?? '*'}|${textDigest(text)}`;
}

/** The candidates of one text, scanned once per settings. */
function candidatesOf(
  text: string,
  settings: CandidateSettings,
  key = candidateKey(text, settings),
): readonly Candidate[] {
  let candidates = candidatesSeen.get(key);
  if (candidates === undefined) {
    candidates = factCandidates(settings.redact ? redactSecrets(text) : text, {
      categories: settings.categories,
      signal: settings.signal,
      maxFacts: Number.POSITIVE_INFINITY,
      maxValueLength: settings.maxFactLength,
    }).map(detached);
    candidatesSeen.set(key, candidates);
  }
  return candidates;
}

const DEFAULT_SETTINGS: CandidateSettings = { redact: true, maxFactLength: DEFAULT_MAX_FACT_LENGTH };

/**
 * Per render function, the {@link candidatesSeen} key of a deeply frozen message's rendered text (a
 * stored original cannot change): a compaction that reads the message again skips rendering and
 * hashing it.
 */
const keysByRender = new WeakMap<(message: Message) => string, WeakMap<Message, string>>();

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

/**
 * The facts the offline extractor finds in `messages` read as one transcript, each rendered by
 * `render` (one function for all calls, so its renderings are remembered), with its default
 * settings: each message is scanned once, however many compactions read it again.
 */
export function offlineFactsOf(
  messages: readonly Message[],
  render: (message: Message) => string,
  maxFacts: number,
): ExtractedFact[] {
  let keys = keysByRender.get(render);
  if (keys === undefined) {
    keys = new WeakMap();
    keysByRender.set(render, keys);
  }
  const perMessage = messages.map((message) => {
    const frozen = isDeepFrozen(message);
    const known = frozen ? keys.get(message) : undefined;
    const seen = known === undefined ? undefined : candidatesSeen.get(known);
    if (seen) return seen;
    const text = render(message);
    const key = candidateKey(text, DEFAULT_SETTINGS);
    if (frozen) keys.set(message, key);
    return candidatesOf(text, DEFAULT_SETTINGS, key);
  });
  return rankedFacts(perMessage, maxFacts);
}

/** Options of {@link createOfflineContextTools}. */
export type OfflineContextToolsOptions = z.input<typeof offlineContextToolsOptionsSchema>;

/**
 * The default {@link ContextTools}: no model, no network. `summarize` is extractive and
 * `extractFacts` uses deterministic extractors; both take plain text or messages rendered with
 * {@link renderTranscript} (one `[user]` / `[assistant]` / `[tool]` header per message), redact
 * secrets first, validate their request and honour its `signal`.
 */
export function createOfflineContextTools(options?: OfflineContextToolsOptions): ContextTools {
  const settings = parseOptions(
    offlineContextToolsOptionsSchema,
    options,
    'createOfflineContextTools options',
  );
  const clean = (text: string) => (settings.redact ? redactSecrets(text) : text);
  return {
    specificationVersion: 'v1',
    async summarize(request) {
      const { content, maxLength, focus, signal } = parseSummarizeRequest(request);
      throwIfAborted(signal);
      return summarizeExtractively(clean(content), {
        maxLength,
        focus,
        signal,
        maxFilesListed: settings.maxFilesListed,
        maxLineLength: settings.maxSummaryLineLength,
        digestShare: settings.summaryDigestShare,
      });
    },
    async extractFacts(request) {
      const { content, categories, signal } = parseExtractFactsRequest(request);
      throwIfAborted(signal);
      const candidates = candidatesOf(content, { ...settings, categories, signal });
      return rankedFacts([candidates], settings.maxFacts);
    },
  };
}
