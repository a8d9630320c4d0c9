import { type ContextTools, type ExtractedFact, type Message, parseOptions } from '@ctxguard/core';
import { isContextTools, lazySchema, throwIfAborted } from '@ctxguard/shared';
import { sha256Hex } from '@ctxguard/token-counter';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { isDeepFrozen } from '../messages/deep-frozen.js';
import { summarizeExtractively } from '../rewrites/extractive-summary.js';
import { redactSecrets } from '../rewrites/redact-secrets.js';
import {
  type CandidateSettings,
  candidatesOf,
  pieceCandidates,
  transcriptCandidates,
} from './candidate-memo.js';
import { parseExtractFactsRequest, parseSummarizeRequest } from './context-tools.js';
import { type Candidate, rankedCandidates, rankedFacts } from './fact-extractors.js';
import { mergeFactLists } from './fact-ledger.js';
import { splitTranscriptMessages } from './transcript.js';

const DEFAULT_MAX_FACT_LENGTH = 300;

/** Schema of {@link OfflineContextToolsOptions}. */
export const offlineContextToolsOptionsSchema = lazySchema(() =>
  z.strictObject({
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
  }),
);

const DEFAULT_SETTINGS: CandidateSettings = { redact: true, maxFactLength: DEFAULT_MAX_FACT_LENGTH };

type OfflineSettings = z.output<typeof offlineContextToolsOptionsSchema>;

/** The settings of every tools object {@link createOfflineContextTools} made. */
const offlineSettings = new WeakMap<ContextTools, OfflineSettings>();

/**
 * Per render function and candidate settings, the candidates of each deeply frozen message's
 * rendered text, for as long as the message lives (a stored original cannot change): a compaction
 * that reads the message again neither renders, hashes nor looks its text up.
 */
const candidatesByRender = new WeakMap<
  (message: Message) => string,
  Map<string, WeakMap<Message, readonly Candidate[]>>
>();

function frozenCandidatesFor(
  render: (message: Message) => string,
  settings: CandidateSettings,
): WeakMap<Message, readonly Candidate[]> {
  let bySettings = candidatesByRender.get(render);
  if (bySettings === undefined) {
    bySettings = new Map();
    candidatesByRender.set(render, bySettings);
  }
  const settingsKey = `${settings.redact}|${settings.maxFactLength}|${settings.categories?.join(',') ?? '*'}`;
  let found = bySettings.get(settingsKey);
  if (found === undefined) {
    found = new WeakMap();
    bySettings.set(settingsKey, found);
  }
  return found;
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
  return rankedFacts(perMessageCandidates(messages, render, DEFAULT_SETTINGS), maxFacts);
}

/**
 * {@link offlineFactsOf} with the default settings, without keys (a digest reads categories and
 * values only).
 */
export function offlineCandidatesOf(
  messages: readonly Message[],
  render: (message: Message) => string,
  maxFacts: number,
): readonly Candidate[] {
  return rankedCandidates(perMessageCandidates(messages, render, DEFAULT_SETTINGS), maxFacts);
}

function perMessageCandidates(
  messages: readonly Message[],
  render: (message: Message) => string,
  settings: CandidateSettings,
): (readonly Candidate[])[] {
  const frozen = frozenCandidatesFor(render, settings);
  return messages.map((message) => messageCandidates(message, () => render(message), frozen, settings));
}

/** The candidates of `message`, whose rendering `text` gives; a deeply frozen one's found by identity. */
function messageCandidates(
  message: Message,
  text: () => string,
  frozen: WeakMap<Message, readonly Candidate[]>,
  settings: CandidateSettings,
): readonly Candidate[] {
  const stored = typeof message === 'object' && message !== null && isDeepFrozen(message);
  const known = stored ? frozen.get(message) : undefined;
  if (known !== undefined) return known;
  const candidates = candidatesOf(text(), settings);
  if (stored) frozen.set(message, candidates);
  return candidates;
}

/**
 * What `extractFacts` of `tools` answers for `texts` (the renderings of `messages` by `render`)
 * joined and asked in chunks of `chunkChars`, as {@link extractFactsSafely} asks (a call per chunk,
 * the answers merged), when `tools` (or the tools they wrap, their `origin`) are offline ones;
 * `undefined` for any other tools. A chunk is read as the offline tools read it, message by message,
 * but a message the chunk holds whole is found by identity: no transcript to hash again.
 */
export function offlineFactsInChunks(
  tools: ContextTools,
  messages: readonly Message[],
  texts: readonly string[],
  render: (message: Message) => string,
  chunkChars: number,
  signal?: AbortSignal,
): { facts: ExtractedFact[]; calls: number } | undefined {
  const settings = offlineSettings.get(isContextTools(tools.origin) ? tools.origin : tools);
  if (settings === undefined) return undefined;
  const read = { redact: settings.redact, maxFactLength: settings.maxFactLength };
  const frozen = frozenCandidatesFor(render, read);
  const content = texts.join('\n');
  if (content.trim().length === 0) return { facts: [], calls: 0 };
  /** Where each rendering starts in `content`. */
  const startsAt = new Map<number, number>();
  let offset = 0;
  texts.forEach((text, index) => {
    startsAt.set(offset, index);
    offset += text.length + 1;
  });
  const found: ExtractedFact[][] = [];
  let calls = 0;
  for (let start = 0; start < content.length; start += chunkChars) {
    throwIfAborted(signal);
    calls++;
    try {
      let at = start;
      const lists = splitTranscriptMessages(content.slice(start, start + chunkChars)).map((piece) => {
        // A piece that starts where a rendering does and is as long is that rendering's text.
        const index = startsAt.get(at);
        const whole = index !== undefined && piece.length === texts[index]!.length;
        // The split dropped the line break before the next header: `\n`, or `\r\n`.
        at += piece.length + (content.charCodeAt(at + piece.length) === 13 ? 2 : 1);
        return whole
          ? messageCandidates(messages[index]!, () => piece, frozen, read)
          : pieceCandidates(piece, read);
      });
      found.push(rankedFacts(lists, settings.maxFacts));
    } catch {
      // As asked by text: a chunk that fails leaves its facts out, unless the request was cancelled.
      if (signal?.aborted) throw signal.reason;
    }
  }
  return { facts: mergeFactLists(found), calls };
}

/**
 * Extractive summaries made before, by settings, request and a digest of the content: a compaction
 * summarizes the same leading pieces of the originals on every run. Bounded by size (about 4 MB).
 */
const summariesMade = /* @__PURE__ */ new LRUCache<string, string>({
  maxSize: 4_000_000,
  sizeCalculation: (summary, key) => summary.length + key.length,
});

function summaryKey(
  settingsJson: string,
  content: string,
  maxLength: number,
  focus: string | undefined,
): string {
  return `${settingsJson}|${JSON.stringify([maxLength, focus ?? null])}|${content.length}:${sha256Hex(content)}`;
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
  const settingsJson = JSON.stringify(settings);
  const tools: ContextTools = {
    specificationVersion: 'v1',
    async summarize(request) {
      const { content, maxLength, focus, signal } = parseSummarizeRequest(request);
      throwIfAborted(signal);
      const key = summaryKey(settingsJson, content, maxLength, focus);
      const known = summariesMade.get(key);
      if (known !== undefined) return known;
      const summary = summarizeExtractively(clean(content), {
        maxLength,
        focus,
        signal,
        maxFilesListed: settings.maxFilesListed,
        maxLineLength: settings.maxSummaryLineLength,
        digestShare: settings.summaryDigestShare,
      });
      summariesMade.set(key, summary);
      return summary;
    },
    async extractFacts(request) {
      const { content, categories, signal } = parseExtractFactsRequest(request);
      throwIfAborted(signal);
      const read = { ...settings, categories, signal };
      return rankedFacts(transcriptCandidates(content, read), settings.maxFacts);
    },
  };
  offlineSettings.set(tools, settings);
  return tools;
}

/** Whether `tools` (or the tools they wrap, their `origin`) are offline ones: no tools means the offline ones. */
export function isOfflineTools(tools: ContextTools | undefined): boolean {
  return tools === undefined || offlineSettings.has(isContextTools(tools.origin) ? tools.origin : tools);
}

let sharedOfflineTools: ContextTools | undefined;

/**
 * The offline tools with their defaults, one object for every stage that is given no tools: what
 * is remembered per tools object (facts of stored tool outputs) holds across compactions.
 */
export function defaultOfflineTools(): ContextTools {
  sharedOfflineTools ??= createOfflineContextTools();
  return sharedOfflineTools;
}
