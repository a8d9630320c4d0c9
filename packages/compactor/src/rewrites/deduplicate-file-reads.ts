import {
  isToolResultPart,
  type Message,
  parseOptions,
  type ToolCallPart,
  type ToolResultPart,
  toolCallsOf,
} from '@ctxguard/core';
import { isRecord, lazySchema, partsOf, pushAll, roleOf } from '@ctxguard/shared';
import { z } from 'zod';
import { runMeter, type TokenMeter } from '../budget/token-meter.js';
import { isPrunedOutputText, renderSupersededRead } from '../facts/markers.js';
import {
  COMMAND_KEYS,
  EDITOR_TOOLS,
  PATH_KEYS,
  READ_TOOLS,
  SHELL_TOOLS,
  toolNameKey,
} from '../facts/tool-vocabulary.js';
import { isDeepFrozen } from '../messages/deep-frozen.js';
import { frozenPrefixEnd } from '../messages/frozen-prefix.js';
import { toolOutputText, withOutput, withReplacedParts } from '../messages/message-parts.js';
import { countingFields } from '../pipeline/stage-options.js';

/** Options of {@link deduplicateFileReads}. */
export const deduplicateFileReadsOptionsSchema = lazySchema(() =>
  z
    .object({
      /** Tool names that read a file, besides the built-in ones (`read_file`, `Read`, `view`, …); compared by their letters and digits, ignoring case. */
      readTools: z.array(z.string().min(1)).default([]),
      /** Tool names that run a shell command, besides the built-in ones (`bash`, `shell`, …). */
      shellTools: z.array(z.string().min(1)).default([]),
      /** Apply only when the savings are at least this fraction of all file-read tokens (default 0.3). */
      minSavingsRatio: z.number().min(0).max(1).default(0.3),
      ...countingFields(),
    })
    .strict(),
);

/** Options accepted by {@link deduplicateFileReads}. */
export type DeduplicateFileReadsStageOptions = z.input<typeof deduplicateFileReadsOptionsSchema>;

/** What {@link deduplicateFileReads} did. */
export interface DeduplicateFileReadsStageResult {
  /** True when earlier reads were replaced (the savings reached `minSavingsRatio`). */
  deduplicated: boolean;
  messages: Message[];
  /** Files that had earlier reads replaced. */
  filesDeduped: number;
  /** Their paths. */
  files: string[];
  /** Earlier reads replaced by a pointer to the latest read. */
  deduplicatedReads: number;
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
}

/** Arguments of a read that do not narrow what it returns (any other argument makes it partial). */
const WHOLE_READ_KEYS = new Set(['explanation', 'reason', 'description', 'encoding']);
const EDIT_NAME = /write|edit|patch|replace|create|delete|remove|move|rename|insert|append|save|mkdir|touch/i;
const EXTENSIONLESS =
  /^(?:Makefile|Dockerfile|Containerfile|Gemfile|Rakefile|Procfile|Justfile|LICENSE|README|CHANGELOG|Vagrantfile|BUILD|WORKSPACE)$/;
const SHELL_META = /[|;&<>`$(){}\n\\]/;
/** NeuroLink's file-read pattern, used only when a tool call says nothing recognisable. */
const TEXT_READ = /(?:read|reading|read_file|readFile|Read file|cat)\s+['"`]?([^\s'"`\n]+)/i;

/** True for text a path can be: no flag, no spaces, a slash or a file extension (or a known extensionless name). */
export function isPlausiblePath(candidate: string): boolean {
  if (candidate.length === 0 || candidate.length > 1024) return false;
  if (candidate.startsWith('-') || /\s/.test(candidate)) return false;
  if (/^[a-z]+:\/\//i.test(candidate)) return false;
  const base = candidate.split(/[\\/]/).pop() ?? '';
  if (base.length === 0) return false;
  if (/[\\/]/.test(candidate) && /[A-Za-z0-9_]/.test(base)) return true;
  if (/^\.?[\w@+-]*\.[A-Za-z0-9_-]{1,12}$/.test(base)) return true;
  return EXTENSIONLESS.test(base);
}

/** A path as a key: quotes and a leading `./` removed, `//` and `/./` collapsed. */
export function normalizePath(path: string): string {
  let out = path.trim().replace(/^['"`]|['"`]$/g, '');
  out = out
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .replace(/\/\.(?=\/)/g, '');
  while (out.startsWith('./')) out = out.slice(2);
  return out;
}

/** True for the text that replaced a superseded read. */
export function isSupersededReadText(text: string): boolean {
  return text.startsWith(renderSupersededRead({ path: '' }).split('\n')[0]!);
}

/** Whether frozen outputs (stored originals, and the placeholders made for them) are placeholders. */
const placeholderOutputs = new WeakMap<ToolResultPart, boolean>();

/**
 * True when a tool result's output is already a placeholder: a pruned output or a superseded read.
 * Remembered for a deeply frozen part, which every compaction checks again. Pass `text` when the
 * output's text is at hand.
 */
export function isPlaceholderOutput(part: ToolResultPart, text?: string): boolean {
  const known = placeholderOutputs.get(part);
  if (known !== undefined) return known;
  text ??= toolOutputText(part);
  const placeholder = isSupersededReadText(text) || isPrunedOutputText(text);
  if (isDeepFrozen(part)) placeholderOutputs.set(part, placeholder);
  return placeholder;
}

/** The built-in keys plus those of a caller's tool names; a name with no letter or digit matches nothing. */
function withNames(builtIn: ReadonlySet<string>, names: readonly string[]): Set<string> {
  const keys = new Set(builtIn);
  for (const key of names.map(toolNameKey)) if (key !== '') keys.add(key);
  return keys;
}

/** A tool result where it stands in the messages. */
interface PairedResult {
  messageIndex: number;
  partIndex: number;
  part: ToolResultPart;
}

/**
 * Each tool call's result: the first one with its id after the call's message not taken by an
 * earlier call. Ids repeat across turns with servers that number calls per turn (`call_0` in every
 * turn), so a result is never looked up by its id alone.
 */
function pairResults(list: readonly Message[]): Map<string, PairedResult> {
  const byId = new Map<string, PairedResult[]>();
  list.forEach((message, messageIndex) => {
    if (roleOf(message) !== 'tool') return;
    partsOf(message).forEach((part, partIndex) => {
      if (!isToolResultPart(part)) return;
      const queue = byId.get(part.toolCallId) ?? [];
      queue.push({ messageIndex, partIndex, part });
      byId.set(part.toolCallId, queue);
    });
  });
  const taken = new Map<string, number>();
  const paired = new Map<string, PairedResult>();
  list.forEach((message, messageIndex) => {
    for (const [k, call] of toolCallsOf(message).entries()) {
      const queue = byId.get(call.toolCallId) ?? [];
      let next = taken.get(call.toolCallId) ?? 0;
      while (next < queue.length && (queue[next] as PairedResult).messageIndex <= messageIndex) next++;
      const result = queue[next];
      if (result === undefined) continue;
      paired.set(callPosition(messageIndex, k), result);
      taken.set(call.toolCallId, next + 1);
    }
  });
  return paired;
}

/** Where the `k`-th tool call of message `messageIndex` stands (a message object may appear twice). */
const callPosition = (messageIndex: number, k: number): string => `${messageIndex}:${k}`;

type Event =
  | { kind: 'read'; path: string; range: string; callId: string }
  | { kind: 'edit'; paths: string[] }
  | { kind: 'shell'; command: string };

function stringArg(input: unknown, keys: readonly string[]): string | undefined {
  if (!isRecord(input)) return undefined;
  for (const key of keys) {
    const value = input[key];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

function commandArg(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (!isRecord(input)) return undefined;
  for (const key of COMMAND_KEYS) {
    const value = input[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      // ['bash', '-lc', 'cat x'] runs its last element.
      const items = value as string[];
      if (items.length >= 3 && /(?:^|\/)(?:ba|z)?sh$/.test(items[0]!) && items[1]!.startsWith('-')) {
        return items[items.length - 1];
      }
      return items.join(' ');
    }
  }
  return undefined;
}

/**
 * What narrows a read: every argument but the path and those known to change nothing, as a
 * signature ('' for the whole file). An argument this stage does not know (`head`, `tail`,
 * `start_line_one_indexed`…) counts as a range, so such a read never stands for the whole file.
 */
function rangeOf(input: unknown): string {
  if (!isRecord(input)) return '';
  const range: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null || PATH_KEYS.includes(key) || WHOLE_READ_KEYS.has(key))
      continue;
    if ((key === 'command' && value === 'view') || (key === 'should_read_entire_file' && value === true))
      continue;
    range[key] = value;
  }
  return Object.keys(range).length === 0 ? '' : JSON.stringify(range);
}

function shellWords(command: string): string[] | undefined {
  const words: string[] = [];
  const pattern = /'([^']*)'|"([^"\\]*)"|(\S+)/g;
  for (let m = pattern.exec(command); m; m = pattern.exec(command)) {
    const word = m[1] ?? m[2] ?? m[3]!;
    if (m[3] !== undefined && /['"]/.test(word)) return undefined;
    words.push(word);
  }
  return words;
}

/**
 * A shell command that only reads one whole file (`cat [-flags] path`, `nl path`, `bat path`) or
 * part of one (`head -n 40 path`, `tail path`): the path and a range signature; else undefined.
 */
export function shellRead(command: string): { path: string; range: string } | undefined {
  if (SHELL_META.test(command)) return undefined;
  const words = shellWords(command.trim());
  if (!words || words.length < 2) return undefined;
  const [program, ...args] = words as [string, ...string[]];
  const name = program.split('/').pop()!;
  const operands: string[] = [];
  const flags: string[] = [];
  const takesValue = name === 'head' || name === 'tail' ? /^-[nc]$/ : /^$/;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      pushAll(operands, args.slice(index + 1));
      break;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      flags.push(arg);
      if (takesValue.test(arg)) flags.push(args[++index] ?? '');
      continue;
    }
    operands.push(arg);
  }
  if (operands.length !== 1 || !isPlausiblePath(operands[0]!)) return undefined;
  if (name === 'cat' || name === 'nl' || name === 'bat' || name === 'batcat') {
    if (flags.some((flag) => flag.startsWith('--') && flag !== '--number' && flag !== '--plain'))
      return undefined;
    return { path: normalizePath(operands[0]!), range: '' };
  }
  if (name === 'head' || name === 'tail') {
    return { path: normalizePath(operands[0]!), range: `${name} ${flags.join(' ')}` };
  }
  return undefined;
}

function patchPaths(text: string): string[] {
  const paths: string[] = [];
  const pattern = /^(?:\*\*\* (?:Update|Add|Delete) File: |\+\+\+ (?:b\/)?|--- (?:a\/)?)(\S+)/gm;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m[1] !== '/dev/null') paths.push(normalizePath(m[1]!));
  }
  return paths;
}

function classifyCall(
  call: ToolCallPart,
  readTools: Set<string>,
  shellTools: Set<string>,
): Event | undefined {
  const name = typeof call.toolName === 'string' ? toolNameKey(call.toolName) : '';
  const input: unknown = call.input;
  if (EDITOR_TOOLS.has(name)) {
    const path = stringArg(input, PATH_KEYS);
    if (!path) return undefined;
    const command = stringArg(input, ['command']);
    if (command === 'view')
      return { kind: 'read', path: normalizePath(path), range: rangeOf(input), callId: call.toolCallId };
    return { kind: 'edit', paths: [normalizePath(path)] };
  }
  if (readTools.has(name)) {
    const path = stringArg(input, PATH_KEYS) ?? (typeof input === 'string' ? input : undefined);
    if (path && isPlausiblePath(path.trim())) {
      return { kind: 'read', path: normalizePath(path), range: rangeOf(input), callId: call.toolCallId };
    }
    return undefined;
  }
  if (shellTools.has(name)) {
    const command = commandArg(input);
    if (command === undefined) return undefined;
    const read = shellRead(command);
    if (read) return { kind: 'read', ...read, callId: call.toolCallId };
    return { kind: 'shell', command };
  }
  if (EDIT_NAME.test(name)) {
    const paths: string[] = [];
    const path = stringArg(input, PATH_KEYS);
    if (path) paths.push(normalizePath(path));
    for (const value of isRecord(input) ? Object.values(input) : [input]) {
      if (typeof value === 'string') pushAll(paths, patchPaths(value));
    }
    return { kind: 'edit', paths };
  }
  return undefined;
}

function fallbackRead(call: ToolCallPart, result: ToolResultPart | undefined): string | undefined {
  const sources = [
    typeof call.input === 'string' ? call.input : (stringArg(call.input, ['query', 'input', 'text']) ?? ''),
    result ? toolOutputText(result).slice(0, 200).split('\n')[0]! : '',
  ];
  for (const source of sources) {
    const m = TEXT_READ.exec(source);
    if (m && isPlausiblePath(m[1]!)) return normalizePath(m[1]!);
  }
  return undefined;
}

/**
 * Replaces earlier reads of a file with a pointer to the latest read, when a later read of the same
 * file (same range, or the whole file) supersedes them with no edit of that file in between. Reads
 * are recognised by tool name and path argument (`read_file`, `Read`, `view`, editor `view`, shell
 * `cat path` / `head -n 40 path` with exactly one path), NeuroLink's text pattern (`read`/`cat` then a path) only for
 * unknown tools; flags and plain words are never paths. Applies when the savings reach
 * `minSavingsRatio` of all file-read tokens. Reads up to a provider compaction item are never
 * replaced. Tool pairs stay intact; never throws on odd messages.
 */
export function deduplicateFileReads(
  messages: readonly Message[],
  options: DeduplicateFileReadsStageOptions = {},
): DeduplicateFileReadsStageResult {
  return deduplicateWithMeter(messages, options);
}

/** {@link deduplicateFileReads} counting with `meter` when given: a compaction's stages share theirs. */
export function deduplicateWithMeter(
  messages: readonly Message[],
  options: DeduplicateFileReadsStageOptions = {},
  shared?: TokenMeter,
): DeduplicateFileReadsStageResult {
  const opts = parseOptions(deduplicateFileReadsOptionsSchema, options, 'deduplicateFileReads options');
  const meter = shared ?? runMeter(opts.counter, opts.countContext);
  const list = Array.isArray(messages) ? messages : [];
  const tokensBefore = meter.total(list);
  const readTools = withNames(READ_TOOLS, opts.readTools);
  const shellTools = withNames(SHELL_TOOLS, opts.shellTools);

  const resultOf = pairResults(list);
  // Open reads per path: earlier reads not yet separated from now by an edit of the file.
  const open = new Map<string, { range: string; result: PairedResult }[]>();
  const superseded = new Map<PairedResult, string>(); // result → path
  const reads: PairedResult[] = [];
  for (const [messageIndex, message] of list.entries()) {
    for (const [k, call] of toolCallsOf(message).entries()) {
      const result = resultOf.get(callPosition(messageIndex, k));
      let event = classifyCall(call, readTools, shellTools);
      if (event === undefined) {
        const path = fallbackRead(call, result?.part);
        if (path) event = { kind: 'read', path, range: '', callId: call.toolCallId };
      }
      if (!event) continue;
      if (event.kind === 'edit') {
        for (const path of event.paths) open.delete(path);
        continue;
      }
      if (event.kind === 'shell') {
        for (const path of [...open.keys()]) if (event.command.includes(path)) open.delete(path);
        continue;
      }
      if (!result || result.part.isError === true) continue;
      reads.push(result);
      const earlier = open.get(event.path) ?? [];
      const still: { range: string; result: PairedResult }[] = [];
      for (const read of earlier) {
        if (event.range === '' || read.range === event.range) superseded.set(read.result, event.path);
        else still.push(read);
      }
      still.push({ range: event.range, result });
      open.set(event.path, still);
    }
  }

  const unchanged = (): DeduplicateFileReadsStageResult => ({
    deduplicated: false,
    messages: list.slice(),
    filesDeduped: 0,
    files: [],
    deduplicatedReads: 0,
    tokensBefore,
    tokensAfter: tokensBefore,
    tokensSaved: 0,
  });
  if (superseded.size === 0) return unchanged();

  let readTokens = 0;
  for (const read of reads) readTokens += meter.toolPart(read.part);
  const replaced = new Map<number, Map<number, ToolResultPart>>();
  const files = new Set<string>();
  let saved = 0;
  let count = 0;
  const frozen = frozenPrefixEnd(list);
  for (const [{ messageIndex, partIndex, part }, path] of superseded) {
    if (messageIndex < frozen) continue;
    if (isPlaceholderOutput(part)) continue;
    const next = withOutput(part, renderSupersededRead({ path }));
    const gain = meter.toolPart(part) - meter.toolPart(next);
    if (gain <= 0) continue;
    saved += gain;
    count++;
    files.add(path);
    const parts = replaced.get(messageIndex) ?? new Map<number, ToolResultPart>();
    replaced.set(messageIndex, parts);
    parts.set(partIndex, next);
  }
  if (count === 0 || saved < opts.minSavingsRatio * readTokens) return unchanged();

  const out = withReplacedParts(list, replaced);
  const tokensAfter = meter.total(out);
  return {
    deduplicated: true,
    messages: out,
    filesDeduped: files.size,
    files: [...files],
    deduplicatedReads: count,
    tokensBefore,
    tokensAfter,
    tokensSaved: tokensBefore - tokensAfter,
  };
}
