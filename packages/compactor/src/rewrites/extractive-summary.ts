import { throwIfAborted } from '@ctxguard/shared';
import { transcriptCandidates } from '../facts/candidate-memo.js';
import { chooseDigestFacts, rankDigestFacts, renderFactDigest } from '../facts/fact-digest.js';
import { rankedCandidates } from '../facts/fact-extractors.js';
import { fileActivityOf } from '../facts/file-activity.js';
import { parseTranscript, type TranscriptMessage } from '../facts/transcript.js';

/** Settings of {@link summarizeExtractively}. */
export interface ExtractiveSummarySettings {
  maxLength: number;
  focus?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Most files listed per list before `(+N more)` (default 40). */
  maxFilesListed?: number | undefined;
  /** Longest kept line in characters; longer lines are cut at a word boundary (default 300). */
  maxLineLength?: number | undefined;
  /**
   * Share of `maxLength` (0–1) a digest of the content's facts may take after the file lists
   * (errors and commands one per line, paths, versions and figures comma-separated); the key
   * lines fill the rest (default 0.5; 0: no digest).
   */
  digestShare?: number | undefined;
}

/** Share of a summary a digest of facts may take by default. */
const DEFAULT_DIGEST_SHARE = 0.5;

/** Below this many characters of room a digest is not written: the key lines say more. */
const MIN_DIGEST_CHARS = 80;

/** The facts of `content` worth a digest of at most `maxChars`, those `shown` already holds left out. */
function factDigest(content: string, shown: string, maxChars: number): string {
  if (maxChars < MIN_DIGEST_CHARS) return '';
  const title = 'Facts:';
  // Message by message through the candidate memo: a compaction summarizes the same originals again.
  const facts = rankedCandidates(transcriptCandidates(content, { redact: false, maxFactLength: 300 }), 400);
  // Each group adds a title and a line break: leave room for them.
  const chosen = chooseDigestFacts(rankDigestFacts(facts, shown), maxChars - title.length - 120);
  const digest = renderFactDigest(chosen, title);
  return digest.length > 0 && digest.length <= maxChars ? `${digest}\n` : '';
}

interface Unit {
  text: string;
  label: string;
  /** Units of one source line share it, so kept neighbours are written on one line again. */
  line: number;
  score: number;
  index: number;
}

const ERROR =
  /(?:\b[A-Z]\w*(?:Error|Exception)\b|\berror\b|\bERR[!_]|\bFAIL(?:ED|URE)?\b|\bfatal\b|\bpanic|Traceback|\bfailed\b|\bcannot\b|\bcan't\b|\bunable to\b|not found|denied|✗|✘)/i;
const DECISION =
  /\b(?:decided?|we(?:'ll| will)|let's|going (?:to|with)|chose|choose|opted|agreed|settled|instead|switch(?:ed|ing)? to|plan|should|must|need to|will (?:use|add|remove|keep|change)|prefer|don't|do not|never|always|todo|next step|fixed|the fix|root cause|because|so that|done|works now|passes)\b/i;
const COMMAND_LINE =
  /^\s*(?:\$|❯|>|%)\s+\S|^\s*(?:pnpm|npm|npx|yarn|git|node|tsc|vitest|docker|kubectl|cargo|go|python3?|pip|make|curl)\s+\S/;
const QUANTITY =
  /\b\d[\d,]*(?:\.\d+)?\s?(?:%|ms|s|sec|seconds?|min|minutes?|h|hours?|days?|KB|MB|GB|KiB|MiB|GiB|bytes?|tokens?|lines?|files?|tests?|passed|failed|x)\b/;
const VERSION = /\bv?\d+\.\d+(?:\.\d+)\b|@\d+\.\d+/;
const PATH =
  /(?:^|[\s"'`(])(?:~|\.{1,2})?\/?(?:[\w.@-]+\/)+[\w.@-]+|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|json|md|py|rs|go|java|rb|yaml|yml|toml|sh|css|html|sql)\b/;
const URL = /\bhttps?:\/\//;
const NAME = /(?<=[a-z,;:]\s)[A-Z][a-z]+\s[A-Z][a-z]+/;
const NOISE = /^[\s{}[\]()<>;,.:'"`|\\/=+*#~_-]*$/;

const STOPWORDS = new Set(
  'the a an and or but of to in on at for with from by is are was were be this that these those it its as into about please'.split(
    ' ',
  ),
);

function focusTerms(focus: string | undefined): string[] {
  if (!focus) return [];
  return [
    ...new Set(
      focus
        .toLowerCase()
        .split(/[^\p{L}\p{N}_./@-]+/u)
        .filter((t) => t.length >= 3 && !STOPWORDS.has(t)),
    ),
  ];
}

function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const space = text.lastIndexOf(' ', max - 1);
  const cut = space > max / 2 ? space : max - 1;
  return `${text.slice(0, cut)}…`;
}

function splitUnits(line: string, max: number): string[] {
  const trimmed = line.trim();
  return trimmed
    .split(/(?<=[.!?])\s+(?=[A-Z"'`(])/)
    .map((s) => cutAtWord(s.trim(), max))
    .filter((s) => s.length > 0);
}

/** A tool call as a reader wants it: the command for shell tools, else its one-line JSON input. */
function callText(input: unknown, json: string): string {
  if (typeof input === 'object' && input !== null) {
    const command =
      (input as { command?: unknown; cmd?: unknown }).command ?? (input as { cmd?: unknown }).cmd;
    if (typeof command === 'string' && Object.keys(input).length <= 2) return `$ ${command}`;
  }
  return json;
}

/**
 * A line that already carries one of our labels (it comes from an earlier summary being folded
 * into a new one): labelling it again would stack them ("user: user: …").
 */
const LABELLED = /^(?:(?:user|assistant|system|tool)(?: ran [^\s:]+)?|[^\s:]+ result): /;

function labelOf(message: TranscriptMessage, kind: string, toolName: string | undefined): string {
  if (kind === 'call') return `${message.role} ran ${toolName ?? 'tool'}`;
  if (kind === 'result') return `${toolName ?? 'tool'} result`;
  if (message.role === 'unknown') return '';
  return message.role;
}

function scoreUnit(
  text: string,
  kind: string,
  role: string,
  terms: readonly string[],
  isError: boolean,
): number {
  let score = 0;
  if (ERROR.test(text) || isError) score += 5;
  if (kind !== 'result' && DECISION.test(text)) score += 3;
  if (kind === 'call' || COMMAND_LINE.test(text)) score += 4;
  if (QUANTITY.test(text)) score += 2;
  if (VERSION.test(text)) score += 2;
  if (PATH.test(text)) score += 2;
  if (URL.test(text)) score += 1;
  if (NAME.test(text)) score += 1;
  if (terms.length > 0) {
    const lower = text.toLowerCase();
    for (const term of terms) if (lower.includes(term)) score += 10;
  }
  if (score === 0) return 0;
  if (role === 'user') score += 2;
  if (kind === 'result' && !isError) score -= 1;
  return score;
}

function fileList(title: string, files: readonly string[], max: number): string {
  if (files.length === 0) return '';
  const shown = files.slice(0, max).join(', ');
  return `${title}: ${shown}${files.length > max ? ` (+${files.length - max} more)` : ''}\n`;
}

/** The units, in the order given, that fit in `budget` characters with their labels. */
function keptWithin(units: readonly Unit[], budget: number): Unit[] {
  const kept: Unit[] = [];
  let left = budget;
  for (const unit of units) {
    const size = unit.text.length + unit.label.length + 3;
    if (size > left) continue;
    kept.push(unit);
    left -= size;
  }
  return kept;
}

function cutToLength(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return text.slice(0, cut);
}

/**
 * An extractive summary of text (plain or in the transcript convention) in at most `maxLength`
 * characters: the files read and modified, then the lines that
 * carry decisions, errors, commands, quantities, versions, paths, names and the focus terms, in
 * their original order, each labelled with who said it.
 */
export function summarizeExtractively(content: string, settings: ExtractiveSummarySettings): string {
  throwIfAborted(settings.signal);
  const messages = parseTranscript(content);
  const activity = fileActivityOf(messages);
  const maxFiles = settings.maxFilesListed ?? 40;
  const maxLine = settings.maxLineLength ?? 300;
  const terms = focusTerms(settings.focus);

  // No count of messages: the summary block's headline says how many it stands for, and a count of
  // the transcript's messages would contradict it once an earlier summary is merged in.
  let head = fileList('Files read', activity.read, maxFiles);
  head += fileList('Files modified', activity.modified, maxFiles);
  const digestRoom = Math.floor(settings.maxLength * (settings.digestShare ?? DEFAULT_DIGEST_SHARE));
  head += factDigest(content, head, Math.min(digestRoom, settings.maxLength - head.length));

  const units: Unit[] = [];
  // The first line that scores nothing: what the summary says when no line scores.
  let opening: Unit | undefined;
  const seen = new Set<string>();
  let firstUser = true;
  let lineCount = 0;
  for (const message of messages) {
    const userBonus = message.role === 'user' && firstUser ? 3 : 0;
    if (message.role === 'user') firstUser = false;
    let inFence = false;
    for (const line of message.lines) {
      if ((lineCount & 255) === 0) throwIfAborted(settings.signal);
      if (/^\s*(?:```|~~~)/.test(line.text)) {
        inFence = !inFence;
        continue;
      }
      if (line.kind === 'media' || NOISE.test(line.text)) continue;
      const raw = line.kind === 'call' ? callText(line.input, line.text) : line.text;
      lineCount++;
      for (const text of splitUnits(raw, maxLine)) {
        if (text.length < 4) continue;
        const key = text.replace(/\s+/g, ' ').toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        const base = scoreUnit(text, line.kind, message.role, terms, line.isError === true);
        const score = base > 0 ? base + userBonus - (inFence && line.kind === 'text' ? 1 : 0) : 0;
        const label = labelOf(message, line.kind, line.toolName);
        if (score > 0) units.push({ text, label, line: lineCount, score, index: units.length });
        else opening ??= { text, label, line: lineCount, score, index: 0 };
      }
    }
  }
  throwIfAborted(settings.signal);

  // Newer lines win ties: the later state of the work matters more than the earlier.
  const ranked = [...units].sort((a, b) => b.score - a.score || b.index - a.index);
  const intro = 'Key points:\n';
  const budget = settings.maxLength - head.length - intro.length;
  let kept = keptWithin(ranked, budget);
  // Nothing scored ("Please paste the log."): an empty summary would drop those messages without a
  // trace, so it keeps the line they open with.
  if (kept.length === 0 && opening) kept = keptWithin([opening], budget);
  kept.sort((a, b) => a.index - b.index);
  let body = '';
  if (kept.length > 0) {
    const lines: string[] = [];
    let previous: Unit | undefined;
    for (const unit of kept) {
      if (previous && previous.line === unit.line && previous.index === unit.index - 1) {
        lines[lines.length - 1] += ` ${unit.text}`;
      } else lines.push(unit.label && !LABELLED.test(unit.text) ? `${unit.label}: ${unit.text}` : unit.text);
      previous = unit;
    }
    body = intro + lines.join('\n');
  }
  return cutToLength((head + body).trimEnd(), settings.maxLength);
}
