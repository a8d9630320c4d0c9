/**
 * The plain-text transcript convention `ContextTools` receive: messages rendered with one header
 * line per message and per tool call/result, so an offline summarizer can tell who said what,
 * count messages, and find the files a tool read or wrote.
 *
 * ```text
 * [user]
 * Please fix the failing test in src/a.ts
 * [assistant]
 * Reading the file first.
 * [call read_file] {"path":"src/a.ts"}
 * [tool]
 * [result read_file]
 * export const a = 1;
 * ```
 *
 * Message headers (`[system]`, `[user]`, `[assistant]`, `[tool]`) each start one message. Part
 * headers: `[call NAME] JSON-INPUT` (one line), `[result NAME]` or `[result NAME error]`,
 * `[reasoning]`, `[image]`, `[file NAME]`. Content lines that would read as a header get a
 * leading backslash. Text with no header at all is one message.
 */
import type { Message } from '@ctxguard/core';

/** Role of a transcript message; `unknown` for text without headers. */
export type TranscriptRole = 'system' | 'user' | 'assistant' | 'tool' | 'unknown';

/** One line of a transcript message and what produced it. */
export interface TranscriptLine {
  text: string;
  kind: 'text' | 'call' | 'result' | 'reasoning' | 'media';
  /** Tool name, for `call` and `result` lines. */
  toolName?: string;
  /** Parsed JSON input of a `call` line. */
  input?: unknown;
  /** For `result` lines: the result was an error. */
  isError?: boolean;
}

/** A message of a parsed transcript. */
export interface TranscriptMessage {
  role: TranscriptRole;
  lines: TranscriptLine[];
}

/** The roles a message header names. */
const HEADER_ROLES = 'system|user|assistant|tool';
const MESSAGE_HEADER = new RegExp(`^\\[(${HEADER_ROLES})\\]$`);
const PART_HEADER = /^\[(call|result|reasoning|image|file)(?: ([^\]\n]*))?\](?: (.*))?$/;
const LOOKS_LIKE_HEADER = /^\\*\[(?:system|user|assistant|tool|call|result|reasoning|image|file)\b/;

function escapeContentLine(line: string): string {
  return LOOKS_LIKE_HEADER.test(line) ? `\\${line}` : line;
}

/**
 * Appends the lines of `text` to `out`, escaped. One push per line: a spread of the lines
 * (`out.push(...lines)`) overflows the stack on a tool output or pasted log of ~100,000 lines.
 */
function pushContentLines(out: string[], text: string): void {
  for (const line of text.split(/\r?\n/)) out.push(escapeContentLine(line));
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  try {
    return JSON.stringify(output) ?? '';
  } catch {
    return '';
  }
}

function oneLine(value: unknown): string {
  try {
    return (JSON.stringify(value) ?? '').replace(/[\u2028\u2029]/g, ' ');
  } catch {
    return '';
  }
}

function safeName(name: unknown): string {
  return typeof name === 'string' && name.length > 0 ? name.replace(/[\]\s]+/g, '_') : 'tool';
}

/**
 * Renders messages in the transcript convention. Images and files become one-line placeholders
 * (never their data); tool inputs are one line of JSON. Odd parts are skipped, never thrown on.
 */
export function renderTranscript(messages: readonly Message[]): string {
  const out: string[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const role = message.role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') continue;
    out.push(`[${role}]`);
    const content: unknown = message.content;
    if (typeof content === 'string') {
      pushContentLines(out, content);
      continue;
    }
    if (!Array.isArray(content)) continue;
    for (const part of content as unknown[]) {
      if (typeof part !== 'object' || part === null) continue;
      const p = part as Record<string, unknown>;
      switch (p['type']) {
        case 'text':
          if (typeof p['text'] === 'string') pushContentLines(out, p['text']);
          break;
        case 'reasoning':
          if (typeof p['text'] === 'string' && p['text'].length > 0) {
            out.push('[reasoning]');
            pushContentLines(out, p['text']);
          }
          break;
        case 'tool-call':
          out.push(`[call ${safeName(p['toolName'])}] ${oneLine(p['input'])}`);
          break;
        case 'tool-result': {
          out.push(`[result ${safeName(p['toolName'])}${p['isError'] === true ? ' error' : ''}]`);
          pushContentLines(out, outputText(p['output']));
          break;
        }
        case 'image':
          out.push('[image]');
          break;
        case 'file':
          out.push(`[file ${safeName(p['filename'] ?? p['mediaType'])}]`);
          break;
        default:
          break;
      }
    }
  }
  return out.join('\n');
}

function parseInputJson(text: string | undefined): unknown {
  if (text === undefined || text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Before each line that is a message header (but the first line): where {@link parseTranscript} starts a message. */
const BEFORE_MESSAGE_HEADER = new RegExp(`\\r?\\n(?=\\[(?:${HEADER_ROLES})\\](?:\\r?\\n|$))`);

/**
 * The transcript cut into one text per message (text before the first header is one more): each
 * parses on its own as that message does in the whole.
 */
export function splitTranscriptMessages(text: string): string[] {
  return text.split(BEFORE_MESSAGE_HEADER);
}

/** Splits text in the transcript convention into messages; text without headers is one `unknown` message. */
export function parseTranscript(text: string): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [];
  let current: TranscriptMessage | undefined;
  let mode: TranscriptLine['kind'] = 'text';
  let toolName: string | undefined;
  let isError = false;
  for (const raw of text.split(/\r?\n/)) {
    const header = MESSAGE_HEADER.exec(raw);
    if (header) {
      current = { role: header[1] as TranscriptRole, lines: [] };
      messages.push(current);
      mode = 'text';
      toolName = undefined;
      continue;
    }
    if (!current) {
      current = { role: 'unknown', lines: [] };
      messages.push(current);
    }
    const part = PART_HEADER.exec(raw);
    if (part) {
      const kind = part[1]!;
      if (kind === 'call') {
        const name = part[2] ?? 'tool';
        current.lines.push({
          text: part[3] ?? '',
          kind: 'call',
          toolName: name,
          input: parseInputJson(part[3]),
        });
        continue;
      }
      if (kind === 'result') {
        const words = (part[2] ?? 'tool').split(' ');
        mode = 'result';
        toolName = words[0];
        isError = words.includes('error');
        continue;
      }
      if (kind === 'reasoning') {
        mode = 'reasoning';
        continue;
      }
      current.lines.push({ text: raw, kind: 'media' });
      continue;
    }
    const line = raw.startsWith('\\') && LOOKS_LIKE_HEADER.test(raw.slice(1)) ? raw.slice(1) : raw;
    const entry: TranscriptLine = { text: line, kind: mode };
    if (mode === 'result') {
      if (toolName !== undefined) entry.toolName = toolName;
      if (isError) entry.isError = true;
    }
    current.lines.push(entry);
  }
  return messages;
}

/** Number of messages a transcript stands for: its message headers, or 1 for non-empty text without any. */
export function countTranscriptMessages(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) if (MESSAGE_HEADER.test(line.trimEnd())) count++;
  return count > 0 ? count : text.trim().length > 0 ? 1 : 0;
}
