/**
 * Fact scorer of the quality benchmark: finds the facts an agent needs later (file paths, error
 * lines, commands run, versions, quantities with units) in a transcript, and checks which are
 * still present verbatim anywhere in a compacted conversation. It knows nothing about how any
 * compactor works; the facts come from the transcript alone.
 */
import type { Message } from '@ctxguard/core';

/** What kind of fact the scorer found. */
export type ScoredFactKind = 'path' | 'error' | 'command' | 'version' | 'quantity';

/** Every kind, in report order. */
export const scoredFactKinds: readonly ScoredFactKind[] = ['path', 'error', 'command', 'version', 'quantity'];

/** One fact: its kind and its exact text. */
export interface ScoredFact {
  kind: ScoredFactKind;
  value: string;
}

/** How many facts of a transcript survived a compaction. */
export interface FactScore {
  total: number;
  kept: number;
  /** kept / total (1 when there are no facts). */
  ratio: number;
  byKind: Record<ScoredFactKind, { total: number; kept: number }>;
  missing: ScoredFact[];
}

/** Longest fact kept whole; longer error lines and commands are scored by their first characters. */
const MAX_FACT_LENGTH = 160;

const SHELL_TOOLS = /^(bash|shell|sh|run|run_command|exec|execute|terminal|run_terminal_cmd)$/i;
const READ_TOOLS = /^(read_file|read|view|open_file|cat)$/i;
const COMMAND_START =
  /^(pnpm|npm|npx|yarn|node|git|tsc|tsx|vitest|biome|cat|ls|grep|rg|find|du|wc|head|tail|sed|cd|mkdir|rm|cp|mv|make|cargo|go|python3?|pip)\s/;

const PATH =
  /(?<![\w/.:@-])(?:\.{1,2}\/|\/|@?[\w.-]+\/)(?:[\w@.+-]+\/)*[\w@+-][\w@.+-]*|(?<![\w/.@-])[\w-]+(?:\.[\w-]+)*\.(?:ts|mts|cts|tsx|js|mjs|cjs|jsx|json|md|yaml|yml|lock|txt|sh|log|toml)\b/g;
const VERSION = /(?<![\w.])v?\d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?![\w]|\.\d)/g;
const QUANTITY =
  /(?<![\w.])\d[\d,_]*(?:\.\d+)? ?(?:ms|µs|s|KB|kB|MB|GB|KiB|MiB|GiB|B|%|tokens?|files?|tests?|errors?|warnings?|lines?|messages|insertions?\(\+\)|deletions?\(-\)|passed|failed|skipped|changed|chars|characters|bytes|entries)(?![\w])/g;
const ERROR_LINE =
  /\berror TS\d+|^\s*(?:FAIL|×|✗|✖)\s|AssertionError|\b[A-Z]\w*Error:|\bERR!|\bERR_[A-Z_]+|\bnpm error\b|\bFound \d+ errors?\b|\[exit code [1-9]\d*\]|\bfailed\b.*\(\d+\)/;
const INLINE_CODE = /`([^`\n]{3,})`/g;

function clip(text: string): string {
  return text.length > MAX_FACT_LENGTH ? text.slice(0, MAX_FACT_LENGTH) : text;
}

function isPathLike(candidate: string): boolean {
  if (candidate.length < 4 || !/[A-Za-z]/.test(candidate)) return false;
  if (/^\d+(?:\/\d+)+$/.test(candidate)) return false;
  // One segment under the root ("/locations" out of an escaped regex) is too weak to be a path.
  if (/^\/[^/]*$/.test(candidate)) return false;
  const last = candidate.split('/').pop() ?? '';
  const slashes = candidate.split('/').length - 1;
  // Words joined by a slash ("and/or", "input/output") are not paths; a file name, a deeper tree
  // or a folder of a source tree is.
  return (
    /\.[A-Za-z]\w*$/.test(last) ||
    slashes >= 2 ||
    /^(\.{1,2}\/|\/)/.test(candidate) ||
    /^@|^(packages|apps|src|test|tests|bench|docs|lib|dist|bin|scripts|node_modules)\//.test(candidate)
  );
}

/** Adds the paths, versions and quantities of a piece of text. */
function scanText(text: string, add: (kind: ScoredFactKind, value: string) => void): void {
  for (const match of text.matchAll(PATH)) {
    // `grep -A` prints context lines as `path-LINE-`; the path is the fact.
    const value = match[0].replace(/-\d+-?$/, '').replace(/[.,:;]+$/, '');
    if (!match[0].includes('://') && !text.slice(Math.max(0, match.index - 3), match.index).includes('://'))
      if (isPathLike(value)) add('path', value);
  }
  for (const match of text.matchAll(VERSION)) add('version', match[0]);
  for (const match of text.matchAll(QUANTITY)) add('quantity', match[0]);
}

/** Adds error lines of command output (whole trimmed lines). */
function scanErrorLines(text: string, add: (kind: ScoredFactKind, value: string) => void): void {
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.length >= 8 && ERROR_LINE.test(trimmed)) add('error', clip(trimmed));
  }
}

/** Adds what people quote in prose: inline code that is a command or an error line. */
function scanProse(text: string, add: (kind: ScoredFactKind, value: string) => void): void {
  scanText(text, add);
  for (const match of text.matchAll(INLINE_CODE)) {
    const code = match[1]!.trim();
    if (COMMAND_START.test(code)) add('command', clip(code));
    else if (ERROR_LINE.test(code)) add('error', clip(code));
  }
}

/** Every string inside a JSON value (tool inputs and outputs). */
export function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) stringsOf(item, out);
  return out;
}

function decodedTextFile(part: { data: string; mediaType: string }): string | undefined {
  if (!/^text\/|json|xml|javascript|typescript/.test(part.mediaType)) return undefined;
  const data = part.data.startsWith('data:') ? part.data.slice(part.data.indexOf(',') + 1) : part.data;
  if (/^https?:/.test(data)) return undefined;
  try {
    return Buffer.from(data, 'base64').toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * Every fact of a transcript, each value once (first kind found wins). The system prompt is left
 * out: every method keeps it, so its facts would only flatter the scores.
 */
export function findFacts(messages: readonly Message[]): ScoredFact[] {
  const seen = new Map<string, ScoredFactKind>();
  const add = (kind: ScoredFactKind, value: string) => {
    if (value.length > 0 && !seen.has(value)) seen.set(value, kind);
  };
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'system') continue;
    const parts =
      typeof message.content === 'string'
        ? [{ type: 'text' as const, text: message.content }]
        : message.content;
    for (const part of parts) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          if (message.role === 'tool') scanErrorLines(part.text, add);
          scanProse(part.text, add);
          break;
        case 'file': {
          const text = decodedTextFile(part);
          if (text !== undefined) scanText(text, add);
          break;
        }
        case 'tool-call': {
          toolNames.set(part.toolCallId, part.toolName);
          const input = part.input as Record<string, unknown> | null;
          const command = typeof input === 'object' && input !== null ? input.command : undefined;
          if (SHELL_TOOLS.test(part.toolName) && typeof command === 'string')
            add('command', clip(command.trim()));
          for (const text of stringsOf(part.input)) scanText(text, add);
          break;
        }
        case 'tool-result': {
          const name = part.toolName ?? toolNames.get(part.toolCallId) ?? '';
          for (const text of stringsOf(part.output)) {
            // A file's own source is not command output: its "Error" identifiers are code, not errors.
            if (!READ_TOOLS.test(name)) scanErrorLines(text, add);
            scanText(text, add);
          }
          break;
        }
        default:
          break;
      }
    }
  }
  return [...seen].map(([value, kind]) => ({ kind, value }));
}

/**
 * All text a model would see in `messages`, one string: text and reasoning, tool-call inputs,
 * tool outputs, and text files (decoded). Facts are looked up in it verbatim.
 */
export function visibleText(messages: readonly Message[]): string {
  const chunks: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      chunks.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') chunks.push(part.text);
      else if (part.type === 'tool-call') chunks.push(...stringsOf(part.input));
      else if (part.type === 'tool-result') {
        chunks.push(...stringsOf(part.output));
        for (const inner of part.content ?? []) if (inner.type === 'text') chunks.push(inner.text);
      } else if (part.type === 'file') {
        const text = decodedTextFile(part);
        if (text !== undefined) chunks.push(text);
      }
    }
  }
  return chunks.join('\n\u0000\n');
}

const WORD = /[A-Za-z0-9_]/;

/**
 * Whether `value` occurs in `text` as a whole token: `1ms` is not in `11ms`, `4.6.7` is not in
 * `14.6.7`, but a path is found inside a longer path after a `/`.
 */
export function containsFact(text: string, value: string): boolean {
  const wordStart = WORD.test(value[0] ?? '');
  const wordEnd = WORD.test(value.at(-1) ?? '');
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
    const before = at > 0 ? text[at - 1]! : '';
    const after = text[at + value.length] ?? '';
    if ((!wordStart || !WORD.test(before)) && (!wordEnd || !WORD.test(after))) return true;
  }
  return false;
}

/** Which of `facts` are still present, verbatim and as whole tokens, anywhere in `compacted`. */
export function scoreFacts(facts: readonly ScoredFact[], compacted: readonly Message[]): FactScore {
  const text = visibleText(compacted);
  const byKind = Object.fromEntries(
    scoredFactKinds.map((kind) => [kind, { total: 0, kept: 0 }]),
  ) as FactScore['byKind'];
  const missing: ScoredFact[] = [];
  let kept = 0;
  for (const fact of facts) {
    const tally = byKind[fact.kind];
    tally.total++;
    if (containsFact(text, fact.value)) {
      tally.kept++;
      kept++;
    } else missing.push(fact);
  }
  return { total: facts.length, kept, ratio: facts.length === 0 ? 1 : kept / facts.length, byKind, missing };
}
