import { type ExtractedFact, type FactCategory, factCategories } from '@ctxguard/core';
import { throwIfAborted } from '@ctxguard/shared';
import { withoutCompactionNotes } from './compaction-notes.js';
import { PRIORITY } from './fact-priority.js';
import { derivedFactKey } from './facts-block.js';
import { COMMAND_KEYS, READ_TOOLS, SHELL_TOOLS, toolNameKey } from './tool-vocabulary.js';
import { parseTranscript, type TranscriptLine, type TranscriptRole } from './transcript.js';

/** Settings of {@link extractFactsFromText}. */
export interface FactExtractionSettings {
  /** Only these categories (all when omitted). */
  categories?: readonly FactCategory[] | undefined;
  /** At most this many facts; errors, commands, paths and versions are kept first. */
  maxFacts: number;
  /** Longer values (error lines, decisions) are cut to a verbatim slice of this many characters. */
  maxValueLength: number;
  signal?: AbortSignal | undefined;
}

/** Commands agents and people run; a line or inline code starting with one of these is a command. */
const COMMAND_WORDS = new Set(
  (
    'pnpm npm npx yarn bun bunx node deno tsc tsx ts-node vitest jest mocha playwright git gh docker docker-compose ' +
    'podman kubectl helm make cmake cargo rustc rustup go python python3 pip pip3 pipx uv poetry pytest ruff mypy ' +
    'ruby bundle rails rake java javac mvn gradle dotnet curl wget ls cd cat head tail less grep rg sed awk find ' +
    'fd mkdir rmdir rm mv cp ln chmod chown touch echo printf export source ssh scp rsync tar zip unzip gzip brew ' +
    'apt apt-get yum dnf sudo terraform aws gcloud az psql mysql redis-cli sqlite3 mongosh biome eslint prettier ' +
    'turbo nx lerna changeset wc sort uniq xargs env which kill ps top du df jq yq openssl ping nc diff patch'
  ).split(' '),
);

export interface Candidate {
  category: FactCategory;
  value: string;
  span?: string;
}

interface LineContext {
  role: TranscriptRole;
  kind: string;
  inFence: boolean;
  /** The line is a file's own content (a read tool's output): its `Error` identifiers are code, not errors. */
  source?: boolean;
}

/**
 * Lines ctxguard wrote about its own work: a marker's comment, a pruned output's header. Their
 * sizes and counts are no facts of the conversation (the facts a pruned output kept follow them).
 */
const OWN_LINE = /^\s*(?:<!-- \/?ctxguard:|\[Tool result (?:cleared|cut to its opening) to save context: )/;

function mask(line: string, start: number, end: number): string {
  return line.slice(0, start) + ' '.repeat(end - start) + line.slice(end);
}

function trimTrailing(value: string): string {
  return value.replace(/[.,;:!?)\]}>'"`]+$/, '');
}

/** A verbatim slice of at most `max` characters around `at`, cut at spaces where possible. */
function windowAround(text: string, at: number, max: number): string {
  if (text.length <= max) return text;
  let start = Math.max(0, at - Math.floor(max / 5));
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < at) start = space + 1;
  }
  let end = Math.min(text.length, start + max);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + max / 2) end = space;
  }
  return text.slice(start, end);
}

function firstWord(text: string): string {
  const m = /^(?:sudo\s+)?([A-Za-z0-9_.-]+)/.exec(text);
  return m ? m[1]! : '';
}

function looksLikeCommand(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length < 2 || trimmed.length > 400) return false;
  const word = firstWord(trimmed);
  if (!COMMAND_WORDS.has(word)) return false;
  // "git is great." reads as prose: a command line has no sentence end after a plain word.
  return !/^[A-Za-z0-9_-]+ (?:is|are|was|were|has|have|can|will|should|and|or|the|a|an)\b/i.test(trimmed);
}

/**
 * Whether a bare `name.ext` is a file and not code or a product: `console.log(` and `path.json(`
 * are calls, `Node.js` and `Vue.js` are names (a capitalised word before `.js`).
 */
function looksLikeFileName(name: string, next: string | undefined): boolean {
  if (next === '(') return false;
  return !/^[A-Z][a-z]+\.js$/.test(name);
}

const URL_RE = /\b(?:https?|wss?|ftp|file):\/\/[^\s<>"'`\]\\)]+|\bgit@[\w.-]+:[\w./-]+/g;
const EMAIL_RE = /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g;
const FILE_EXT =
  'ts|tsx|mts|cts|js|jsx|mjs|cjs|json|jsonc|json5|md|mdx|py|pyi|rs|go|java|kt|kts|rb|php|c|cc|cpp|h|hpp|cs|swift|sh|bash|zsh|ps1|yaml|yml|toml|lock|txt|log|css|scss|sass|less|html|htm|vue|svelte|sql|graphql|proto|env|ini|cfg|conf|xml|gradle|csv|tsv|ipynb|dockerfile|tf|lua|ex|exs|erl|dart|scala|r|pl|zig|wasm|snap|patch|diff';
const KNOWN_DIRS =
  /^(?:\.{0,2}\/)?(?:src|lib|test|tests|__tests__|spec|packages|apps|app|dist|build|docs|bin|scripts|node_modules|components|pages|public|config|bench|tools|internal|cmd|pkg|include|examples?|fixtures|\.github|\.changeset)\//;
const SLASH_PATH_RE =
  /(?<![\w@.:/\\-])((?:~|\.{1,2})?\/?(?:[\w.@+-]+\/)+[\w.@+-]*[\w@+-])(?::\d+(?::\d+)?)?/g;
const WINDOWS_PATH_RE = /\b[A-Za-z]:\\(?:[^\\\s"'<>|:*?]+\\)*[^\\\s"'<>|:*?]+/g;
const BARE_FILE_RE = new RegExp(
  String.raw`(?<![\w@./\\-])(?:[\w-]+\.)*[\w-]*[A-Za-z][\w-]*\.(?:${FILE_EXT})(?![\w-])|(?<![\w./-])(?:Dockerfile|Makefile|Procfile|Gemfile|Rakefile|Jenkinsfile|Containerfile)(?![\w.-])`,
  'gi',
);
const ISO_DATE_RE =
  /\b\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g;
const MONTHS =
  'Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?';
const TEXT_DATE_RE = new RegExp(
  String.raw`\b(?:(?:${MONTHS})\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4}|\d{1,2}(?:st|nd|rd|th)? (?:${MONTHS})\.?,? \d{4})\b|\b\d{1,2}\/\d{1,2}\/(?:\d{4}|\d{2})\b`,
  'g',
);
const TIME_RE =
  /(?<![\w:.])(?:(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:\s?[AaPp]\.?[Mm]\.?)?(?:\s?(?:UTC|GMT))?|(?:1[0-2]|[1-9])\s?[ap]\.?m\.?)(?![\w:])/g;
const MONEY_RE =
  /(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|K|m|M|bn|million|billion|thousand)\b)?|\b\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP|JPY|CHF|dollars|euros|pounds|cents)\b)/g;
const PACKAGE_VERSION_RE =
  /(?<![\w.@/-])((?:@[a-z0-9][\w.-]*\/)?[a-zA-Z0-9][\w.-]*)@([\^~]?v?\d+(?:\.\d+){1,3}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)(?![\w.])/g;
const VERSION_RE =
  /(?<![\w.@/-])[\^~]?v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]*[0-9A-Za-z])?(?:\+[0-9A-Za-z.-]*[0-9A-Za-z])?(?![\w.]*\d)/g;
const NAMED_VERSION_RE =
  /\b(?:version|ver\.?|Node(?:\.js)?|node|TypeScript|typescript|Python|python|Go|Rust|Java|Ruby|pnpm|npm|yarn|Deno|Bun|PHP|Postgres(?:QL)?|MySQL|Redis|React|Vue|Angular|Next\.js|zod|vitest)\s+(v?\d+(?:\.\d+){0,2})(?![\w.]*\d)/g;
const UNITS_SPACED =
  '%|ms|µs|us|ns|sec|secs|seconds?|mins?|minutes?|hrs?|hours?|days?|weeks?|months?|years?|B|KB|MB|GB|TB|PB|KiB|MiB|GiB|TiB|kB|bytes?|tokens?|lines?|files?|tests?|suites?|chars?|characters?|messages?|requests?|calls?|rows?|items?|entries|records|errors?|warnings?|px|em|rem|pt|cm|mm|km|kg|lbs?|°C|°F|MHz|GHz|Hz|fps|rps|qps|req/s|ops/s|passed|failed|skipped|pending|todo|retries|attempts|workers|threads|cores|CPUs?|commits?|packages?|modules?|dependencies|steps|pages|users|times|insertions?\\(\\+\\)|deletions?\\(-\\)|s';
const QUANTITY_RE = new RegExp(
  String.raw`(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?(?:${UNITS_SPACED})(?![\w/])|(?:s|m|h|d|x|k|K|M|G)(?![\w.]))`,
  'g',
);
const UUID_RE = /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g;
const HEX_ID_RE = /(?<![\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}(?![\w-])/g;
const PREFIXED_ID_RE = /(?<![\w-])[a-z]{2,10}_(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{8,}(?![\w-])/g;
const ISSUE_REF_RE = /(?<![\w&#])#\d{1,7}\b/g;
const LABELED_NUMBER_RE =
  /\b(port|pid|exit code|exit status|status code|status|code|line|issue|pr|pull request|build|run|attempt|retry|count|total|limit|max|min|size|timeout|http)\s*[:#=]?\s*(\d+)\b/gi;
const PACKAGE_NAME_RE = /(?<![\w.@/-])@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*/g;
const INTRODUCED_NAME_RE =
  /\b(?:[Mm]y name is|[Nn]ame is|[Nn]amed|[Cc]alled|I am|I'm|[Tt]his is|[Aa]sk|[Cc]ontact|[Ff]rom|[Bb]y)\s+([A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2})\b/g;
const CAPITALIZED_RUN_RE = /(?<=[a-z0-9,;:)]\s)[A-Z][a-z]+(?:\s[A-Z][a-z]+){1,3}\b/g;
const ENV_VAR_RE = /(?<![\w$])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w])/g;
const NAME_STOPWORDS = new Set(
  (
    'The This That These Those It I We You He She They And But Or If When Then So In On At For To Of With From By As Is Are ' +
    'Was Were Be Error Type Summary File Files Note Key Facts Read Write Run Test Tests Quick Start API Install Usage ' +
    'Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April June July August September ' +
    'October November December Yes No Ok Okay Please Thanks Thank Let Next Done Fixed Added Removed Updated Created'
  ).split(' '),
);
const ERROR_RE =
  /(?:^\s*(?:×|✖|FAIL)\s|\[exit code [1-9]\d*\]|\bFound \d+ errors?\b|\b[A-Z]\w*(?:Error|Exception)\b|\berror\b|\bERR[!_]|\bFAIL(?:ED|URE)?\b|\bfatal\b|\bpanic(?:ked)?\b|Traceback \(most recent|Segmentation fault|command not found|No such file or directory|\bcannot find\b|\bfailed\b|✗|✘|\bdenied\b)/i;
/** In prose (text a person or a model wrote, a pasted file), only lines shaped like tool output are error lines. */
const PROSE_ERROR_RE =
  /(?:^\s*(?:[A-Z]\w*(?:Error|Exception)|error|fatal|panic)\b(?:\[[\w-]+\])?:|\berror TS\d+|\bERR[!_]|Traceback \(most recent|^\s*(?:×|✖|✗|✘|FAIL)\s|\[exit code [1-9]\d*\]|Segmentation fault|command not found|No such file or directory)/;
const NOT_AN_ERROR_RE = /\b(?:0|no|zero|without) (?:errors?|failures?|failed)\b|\berrors?: 0\b|\b0 failed\b/i;
const DECISION_RE =
  /\b(?:decided|decide to|we(?:'ll| will) (?:use|go|keep|switch|add|remove|drop|move)|let's|going with|(?:chose|choose|opted|agreed) (?:to|on)|settled on|instead of|switch(?:ed|ing)? to|the plan is|the fix is|root cause)\b/i;
const PREFERENCE_RE =
  /\b(?:I prefer|I'd prefer|I would prefer|I'd rather|I like|I don't like|I want|please (?:always|never|don't|do not|use|avoid|keep)|always use|never use|don't use|do not use|avoid using|make sure to)\b/i;

function sentences(line: string): string[] {
  return line
    .split(/(?<=[.!?])\s+(?=[A-Z"'`(])/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function collectStrings(value: unknown, key: string, out: { key: string; text: string }[], depth = 0): void {
  if (depth > 4 || out.length > 64) return;
  if (typeof value === 'string') out.push({ key, text: value });
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, key, out, depth + 1);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) collectStrings(v, k, out, depth + 1);
  }
}

/**
 * Deterministic fact extraction over text (plain or in the transcript convention): paths, URLs,
 * emails, commands, error lines, versions, quantities, numbers, money, dates, times, ids and
 * hashes, names, decisions and preferences. Values are verbatim; facts are deduplicated and keyed
 * `category.slug_of_value` so the same fact gets the same key every time. The figures of ctxguard's
 * own compaction notes ("[Summary of 23 earlier messages]") are not facts of the conversation.
 */
export function extractFactsFromText(input: string, settings: FactExtractionSettings): ExtractedFact[] {
  return rankedFacts([factCandidates(input, settings)], settings.maxFacts);
}

/** The facts found in `input` before ranking, in the order found (one per category and value). */
export function factCandidates(input: string, settings: FactExtractionSettings): readonly Candidate[] {
  const text = withoutCompactionNotes(input);
  const facts = new CandidateSet(settings);
  scanTranscript(text, facts, settings.signal);
  throwIfAborted(settings.signal);
  return facts.values();
}

/**
 * The candidates of `lists`, each category and value once, in the order first found (values by
 * category rather than one `category + value` string each: remembered candidates keep their value
 * strings, whose hashes the engine keeps, so a merge builds no string per candidate).
 */
function mergedCandidates(lists: readonly (readonly Candidate[])[]): Candidate[] {
  const seen = new Map<FactCategory, Set<string>>();
  const unique: Candidate[] = [];
  for (const list of lists)
    for (const candidate of list) {
      let values = seen.get(candidate.category);
      if (values === undefined) {
        values = new Set();
        seen.set(candidate.category, values);
      }
      if (values.has(candidate.value)) continue;
      values.add(candidate.value);
      unique.push(candidate);
    }
  return unique;
}

/**
 * The facts of several texts' candidates, as {@link extractFactsFromText} finds them in the
 * texts joined (messages are scanned one by one, so the first occurrence of a fact wins either way).
 */
export function rankedFacts(lists: readonly (readonly Candidate[])[], maxFacts: number): ExtractedFact[] {
  return withStableKeys(rankedCandidates(lists, maxFacts));
}

/** {@link rankedFacts} without their keys, for readers of categories and values only. */
export function rankedCandidates(lists: readonly (readonly Candidate[])[], maxFacts: number): Candidate[] {
  return rankCandidates(mergedCandidates(lists), maxFacts);
}

/** The facts found so far: one per category and value, wanted categories only, in the order found. */
class CandidateSet {
  readonly maxValueLength: number;
  readonly #wanted: Set<FactCategory>;
  readonly #seen = new Map<string, Candidate>();

  constructor(settings: FactExtractionSettings) {
    this.#wanted = new Set<FactCategory>(settings.categories ?? factCategories);
    this.maxValueLength = settings.maxValueLength;
  }

  /** Adds a fact (cut to `maxValueLength`) unless its category is not wanted, it is blank or already found. */
  add(category: FactCategory, raw: string, span?: string): void {
    if (!this.#wanted.has(category)) return;
    const max = this.maxValueLength;
    const value = raw.length > max ? windowAround(raw, 0, max) : raw;
    if (value.trim().length === 0) return;
    const id = `${category}\u0000${value}`;
    if (this.#seen.has(id)) return;
    const candidate: Candidate = { category, value };
    if (span !== undefined && span !== value)
      candidate.span = span.length > 120 ? windowAround(span, 0, 120) : span;
    this.#seen.set(id, candidate);
  }

  values(): Candidate[] {
    return [...this.#seen.values()];
  }
}

/** Scans every line of every message; a checked abort every 256 lines keeps a huge input cancellable. */
function scanTranscript(text: string, facts: CandidateSet, signal: AbortSignal | undefined): void {
  let lineCount = 0;
  for (const message of parseTranscript(text)) {
    let inFence = false;
    for (const line of message.lines) {
      if ((++lineCount & 255) === 0) throwIfAborted(signal);
      if (line.kind === 'call') {
        scanToolCall(line, message.role, facts);
        continue;
      }
      if (/^\s*(?:```|~~~)/.test(line.text)) {
        inFence = !inFence;
        continue;
      }
      if (line.text.length > 20_000 || OWN_LINE.test(line.text)) continue;
      const source =
        line.kind === 'result' && line.toolName !== undefined && READ_TOOLS.has(toolNameKey(line.toolName));
      scanLine(line.text, { role: message.role, kind: line.kind, inFence, source }, facts);
    }
  }
}

/** A tool call's input: its command fields (every string, for a shell tool) are commands; each string line is scanned. */
function scanToolCall(line: TranscriptLine, role: TranscriptRole, facts: CandidateSet): void {
  const strings: { key: string; text: string }[] = [];
  collectStrings(line.input, '', strings);
  const shell = line.toolName !== undefined && SHELL_TOOLS.has(toolNameKey(line.toolName));
  for (const { key, text: value } of strings) {
    if (COMMAND_KEYS.includes(key) || (shell && key === '')) facts.add('command', value.trim());
    for (const part of value.split(/\r?\n/)) scanLine(part, { role, kind: 'call', inFence: false }, facts);
  }
}

/**
 * One line: whole-line facts first, then the patterns in a fixed order. The order matters: each
 * pattern blanks out what it takes, so a later, looser one never claims a piece of an earlier fact.
 */
function scanLine(line: string, ctx: LineContext, facts: CandidateSet): void {
  const scan = new MaskedLine(line);
  const trimmed = line.trim();
  const prose = ctx.kind === 'text' || ctx.kind === 'reasoning';
  addWholeLineFacts(line, trimmed, ctx, prose, facts);
  scanFixedShapes(scan, facts);
  scanPaths(scan, facts);
  scanDatesAndMoney(scan, facts);
  scanVersionsAndQuantities(scan, facts);
  scanIdentifiers(scan, facts);
  if (prose) scanNames(scan, facts);
  scanEnvVars(scan, facts);
}

/** A line whose matched spans are blanked out as patterns take them (same length, so indexes hold). */
class MaskedLine {
  #work: string;

  constructor(line: string) {
    this.#work = line;
  }

  /** The line with every match taken so far blanked out. */
  get text(): string {
    return this.#work;
  }

  /** Runs `re` over the line; each match `take` does not reject (by returning false) is blanked out. */
  each(re: RegExp, take: (m: RegExpExecArray) => boolean | undefined): void {
    re.lastIndex = 0;
    for (let m = re.exec(this.#work); m !== null; m = re.exec(this.#work)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      if (take(m) !== false) this.#work = mask(this.#work, m.index, m.index + m[0].length);
    }
  }
}

/** Errors, commands, decisions and preferences: facts that are the whole line (or sentence). */
function addWholeLineFacts(
  line: string,
  trimmed: string,
  ctx: LineContext,
  prose: boolean,
  facts: CandidateSet,
): void {
  const max = facts.maxValueLength;
  const errorAt = ctx.source ? null : (ctx.kind === 'result' ? ERROR_RE : PROSE_ERROR_RE).exec(trimmed);
  if (errorAt && !NOT_AN_ERROR_RE.test(trimmed) && trimmed.length >= 6) {
    facts.add('error', windowAround(trimmed, errorAt.index, max));
  }
  const prompt = /^\s*(?:\$|❯|➜|%|>|#)\s+(.+)$/.exec(line);
  if (prompt && looksLikeCommand(prompt[1]!)) facts.add('command', prompt[1]!.trim());
  else if (ctx.inFence && looksLikeCommand(trimmed) && ctx.kind !== 'result') facts.add('command', trimmed);
  if (prose) {
    for (const inline of line.matchAll(/`([^`\n]{2,300})`/g)) {
      if (looksLikeCommand(inline[1]!)) facts.add('command', inline[1]!.trim());
    }
    for (const sentence of sentences(trimmed)) {
      if (DECISION_RE.test(sentence)) facts.add('decision', windowAround(sentence, 0, max));
      if (ctx.role === 'user' && PREFERENCE_RE.test(sentence))
        facts.add('preference', windowAround(sentence, 0, max));
    }
  }
}

/** URLs, emails, package names and versions, ISO dates: shapes taken before paths and numbers see them. */
function scanFixedShapes(scan: MaskedLine, facts: CandidateSet): void {
  scan.each(URL_RE, (m) => {
    facts.add('url', trimTrailing(m[0]));
    return true;
  });
  scan.each(EMAIL_RE, (m) => {
    if (/^git@/.test(m[0])) return false;
    facts.add('email', m[0]);
    return true;
  });
  scan.each(PACKAGE_NAME_RE, (m) => {
    const versioned = /^@[^@\s]+@/.test(scan.text.slice(m.index));
    if (!versioned) facts.add('name', m[0]);
    return !versioned;
  });
  scan.each(PACKAGE_VERSION_RE, (m) => {
    facts.add('version', m[0]);
    return true;
  });
  scan.each(ISO_DATE_RE, (m) => {
    facts.add('date', m[0]);
    return true;
  });
}

function scanPaths(scan: MaskedLine, facts: CandidateSet): void {
  scan.each(SLASH_PATH_RE, (m) => {
    // `grep -A/-B/-C` prints context lines as `path-LINE-`: the path is the fact.
    const path = trimTrailing(m[1]!.replace(/(\.[A-Za-z]\w*)-\d+-?$/, '$1'));
    const hasExt = new RegExp(String.raw`\.(?:${FILE_EXT})$`, 'i').test(path);
    const anchored = /^(?:~|\.{1,2})?\//.test(path);
    const slashes = path.split('/').length - 1;
    if (!/[A-Za-z]/.test(path) || path.startsWith('@')) return false;
    if (/^\d+(?:\/\d+)+$/.test(path)) return false;
    if (!(hasExt || (anchored && path.length > 1) || slashes >= 2 || KNOWN_DIRS.test(path))) return false;
    if (anchored && slashes === 1 && path.length < 3) return false;
    facts.add('path', path);
    return true;
  });
  scan.each(WINDOWS_PATH_RE, (m) => {
    facts.add('path', trimTrailing(m[0]));
    return true;
  });
  scan.each(BARE_FILE_RE, (m) => {
    if (!looksLikeFileName(m[0], scan.text[m.index + m[0].length])) return false;
    facts.add('path', m[0]);
    return true;
  });
}

function scanDatesAndMoney(scan: MaskedLine, facts: CandidateSet): void {
  scan.each(TEXT_DATE_RE, (m) => {
    facts.add('date', m[0]);
    return true;
  });
  scan.each(TIME_RE, (m) => {
    facts.add('time', m[0]);
    return true;
  });
  scan.each(MONEY_RE, (m) => {
    facts.add('money', m[0].trim());
    return true;
  });
}

function scanVersionsAndQuantities(scan: MaskedLine, facts: CandidateSet): void {
  scan.each(NAMED_VERSION_RE, (m) => {
    facts.add('version', m[1]!, m[0]);
    return true;
  });
  scan.each(VERSION_RE, (m) => {
    if (/^\d+\.\d+\.\d+\.\d+$/.test(m[0])) return false;
    facts.add('version', m[0]);
    return true;
  });
  scan.each(QUANTITY_RE, (m) => {
    facts.add('quantity', m[0]);
    return true;
  });
}

/** Ids, hashes, issue references and labelled numbers (`port 3000`, `exit code 1`). */
function scanIdentifiers(scan: MaskedLine, facts: CandidateSet): void {
  scan.each(UUID_RE, (m) => {
    facts.add('identifier', m[0]);
    return true;
  });
  scan.each(PREFIXED_ID_RE, (m) => {
    facts.add('identifier', m[0]);
    return true;
  });
  scan.each(HEX_ID_RE, (m) => {
    facts.add('identifier', m[0]);
    return true;
  });
  scan.each(ISSUE_REF_RE, (m) => {
    facts.add('identifier', m[0]);
    return true;
  });
  scan.each(LABELED_NUMBER_RE, (m) => {
    facts.add('number', m[2]!, m[0]);
    return true;
  });
}

/** People's names, in prose only: introduced ones ("my name is …") and runs of capitalised words. */
function scanNames(scan: MaskedLine, facts: CandidateSet): void {
  scan.each(INTRODUCED_NAME_RE, (m) => {
    if (!NAME_STOPWORDS.has(m[1]!.split(/[ -]/)[0]!)) facts.add('name', m[1]!);
    return false;
  });
  scan.each(CAPITALIZED_RUN_RE, (m) => {
    const words = m[0].split(' ');
    if (words.some((w) => NAME_STOPWORDS.has(w))) return false;
    facts.add('name', m[0]);
    return true;
  });
}

function scanEnvVars(scan: MaskedLine, facts: CandidateSet): void {
  scan.each(ENV_VAR_RE, (m) => {
    if (m[0].length < 4) return false;
    facts.add('other', m[0]);
    return true;
  });
}

const priorityRank = new Map<FactCategory, number>(PRIORITY.map((category, index) => [category, index]));
const categoryRank = new Map<FactCategory, number>(
  factCategories.map((category, index) => [category, index]),
);

/**
 * At most `maxFacts` of `candidates` (in the order found), the most important categories first
 * (see `PRIORITY`), then ordered by category and, within one, as found.
 */
function rankCandidates(candidates: readonly Candidate[], maxFacts: number): Candidate[] {
  let kept = candidates;
  if (candidates.length > maxFacts) {
    const chosen = new Set(inRankOrder(candidates, priorityRank).slice(0, maxFacts));
    kept = candidates.filter((candidate) => chosen.has(candidate));
  }
  return inRankOrder(kept, categoryRank);
}

/** `candidates` by the rank of their category, as given within one rank (a stable bucket sort). */
function inRankOrder(
  candidates: readonly Candidate[],
  ranks: ReadonlyMap<FactCategory, number>,
): Candidate[] {
  const buckets = new Map<number, Candidate[]>();
  for (const candidate of candidates) {
    const rank = ranks.get(candidate.category) ?? -1;
    const bucket = buckets.get(rank);
    if (bucket === undefined) buckets.set(rank, [candidate]);
    else bucket.push(candidate);
  }
  return [...buckets.keys()].sort((a, b) => a - b).flatMap((rank) => buckets.get(rank)!);
}

/** `category.slug` from the value; a second value with the same slug gets `_2`, and so on. */
function withStableKeys(candidates: readonly Candidate[]): ExtractedFact[] {
  const used = new Map<string, number>();
  return candidates.map((c) => {
    let key = derivedFactKey(c.category, c.value);
    const count = (used.get(key) ?? 0) + 1;
    used.set(key, count);
    if (count > 1) key = `${key}_${count}`;
    const fact: ExtractedFact = { key, value: c.value, category: c.category };
    if (c.span !== undefined) fact.span = c.span;
    return fact;
  });
}
