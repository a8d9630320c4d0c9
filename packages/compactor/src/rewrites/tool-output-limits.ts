import { parseOptions } from '@ctxguard/core';
import { lazySchema, utf8Length } from '@ctxguard/shared';
import { z } from 'zod';

/** Tool output above this many UTF-8 bytes is truncated (50 KiB). */
export const MAX_TOOL_OUTPUT_BYTES = 51_200;
/** Tool output above this many lines is truncated. */
export const MAX_TOOL_OUTPUT_LINES = 2000;

/** Writes the full output somewhere (a file, an object store); may be sync or async. */
export type ToolOutputWriter = (path: string, content: string) => void | Promise<void>;

/** Schema of {@link TruncateToolOutputOptions}. */
export const truncateToolOutputOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Most UTF-8 bytes kept, notice included (default 51,200). */
    maxBytes: z.number().int().min(64).default(MAX_TOOL_OUTPUT_BYTES),
    /** Most lines kept, notice excluded (default 2,000). */
    maxLines: z.number().int().positive().default(MAX_TOOL_OUTPUT_LINES),
    /** Which part to keep: the start, the end (default: errors and summaries are usually last), or both ends. */
    direction: z.enum(['head', 'tail', 'head-tail']).default('tail'),
    /** Save the full output through `writer` before truncating it, and say where in the notice. */
    save: z
      .strictObject({
        /** Folder the file goes in (joined with `/`). */
        dir: z.string().min(1),
        writer: z.custom<ToolOutputWriter>((v) => typeof v === 'function', 'must be a function'),
        /** File name (default `tool-output-<time>-<random>.txt`). */
        fileName: z.string().min(1).optional(),
      })
      .optional(),
  }),
);

/** Options of {@link truncateToolOutput}. */
export type TruncateToolOutputOptions = z.input<typeof truncateToolOutputOptionsSchema>;

/** What {@link truncateToolOutput} returns. */
export interface TruncateToolOutputResult {
  /** The kept output with the notice, or the output unchanged. */
  content: string;
  truncated: boolean;
  /** Size of the original output in UTF-8 bytes. */
  originalSize: number;
  /** Lines of the original output. */
  originalLines: number;
  /** Where the full output was saved, when `save` was given. */
  savedPath?: string;
}

/** Longest prefix of `text` within `maxBytes` UTF-8 bytes, never splitting a character. */
function prefixWithin(text: string, maxBytes: number): string {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.codePointAt(index)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += code > 0xffff ? 2 : 1;
  }
  return text.slice(0, index);
}

/** Longest suffix of `text` within `maxBytes` UTF-8 bytes, never splitting a character. */
function suffixWithin(text: string, maxBytes: number): string {
  let bytes = 0;
  let index = text.length;
  while (index > 0) {
    const low = text.charCodeAt(index - 1);
    const pair = low >= 0xdc00 && low <= 0xdfff && index >= 2;
    const code = text.codePointAt(pair ? index - 2 : index - 1)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index -= code > 0xffff ? 2 : 1;
  }
  return text.slice(index);
}

function headLines(lines: readonly string[], maxLines: number, maxBytes: number): string {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines.slice(0, maxLines)) {
    const size = utf8Length(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      const room = maxBytes - bytes - (kept.length > 0 ? 1 : 0);
      if (kept.length === 0 && room > 0) kept.push(prefixWithin(line, room));
      break;
    }
    kept.push(line);
    bytes += size;
  }
  return kept.join('\n');
}

function tailLines(lines: readonly string[], maxLines: number, maxBytes: number): string {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines.slice(Math.max(0, lines.length - maxLines)).reverse()) {
    const size = utf8Length(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      const room = maxBytes - bytes - (kept.length > 0 ? 1 : 0);
      if (kept.length === 0 && room > 0) kept.push(suffixWithin(line, room));
      break;
    }
    kept.push(line);
    bytes += size;
  }
  return kept.reverse().join('\n');
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
  return lines;
}

function defaultFileName(): string {
  const random =
    typeof globalThis.crypto?.randomUUID === 'function'
      ? globalThis.crypto.randomUUID().slice(0, 8)
      : Math.random().toString(36).slice(2, 10);
  return `tool-output-${Date.now()}-${random}.txt`;
}

function notice(originalBytes: number, keptBytes: number, omittedLines: number, savedPath?: string): string {
  const lines = omittedLines > 0 ? `; ${omittedLines} lines omitted` : '';
  const saved = savedPath ? `. Full output saved to ${savedPath}` : '';
  return `[Output truncated from ${originalBytes} bytes to ${keptBytes} bytes${lines}${saved}]`;
}

/**
 * Keeps a tool output within `maxBytes` and `maxLines`: the start, the end, or both ends, whole
 * lines where possible, with a notice saying how much was cut (the notice counts toward
 * `maxBytes`). With `save`, the full output is first written through the injected writer and the
 * notice says where; the result is a promise only then.
 */
export function truncateToolOutput(
  output: string,
  options: TruncateToolOutputOptions & { save: NonNullable<TruncateToolOutputOptions['save']> },
): Promise<TruncateToolOutputResult>;
export function truncateToolOutput(
  output: string,
  options?: Omit<TruncateToolOutputOptions, 'save'>,
): TruncateToolOutputResult;
export function truncateToolOutput(
  output: string,
  options?: TruncateToolOutputOptions,
): TruncateToolOutputResult | Promise<TruncateToolOutputResult>;
export function truncateToolOutput(
  output: string,
  options?: TruncateToolOutputOptions,
): TruncateToolOutputResult | Promise<TruncateToolOutputResult> {
  const parsed = parseOptions(truncateToolOutputOptionsSchema, options, 'truncateToolOutput options');
  parseOptions(z.object({ output: z.string() }), { output }, 'truncateToolOutput');
  const originalSize = utf8Length(output);
  const originalLines = countLines(output);
  const fits = originalSize <= parsed.maxBytes && originalLines <= parsed.maxLines;
  if (fits) {
    const result = { content: output, truncated: false, originalSize, originalLines };
    return parsed.save ? Promise.resolve(result) : result;
  }
  const cut = (savedPath?: string): TruncateToolOutputResult => {
    // Reserve room for the notice at its largest (the kept size has at most as many digits as maxBytes).
    const reserve = utf8Length(notice(originalSize, parsed.maxBytes, originalLines, savedPath)) + 2;
    const room = Math.max(16, parsed.maxBytes - reserve);
    const lines = output.split('\n');
    if (parsed.direction === 'head-tail') {
      const head = headLines(lines, Math.ceil(parsed.maxLines / 2), Math.floor(room / 2));
      const headCount = countLines(head);
      const tail = tailLines(
        lines.slice(headCount),
        Math.floor(parsed.maxLines / 2),
        room - utf8Length(head) - 1,
      );
      const keptLineCount = headCount + countLines(tail);
      const keptBytes = utf8Length(head) + utf8Length(tail);
      const text = notice(originalSize, keptBytes, originalLines - keptLineCount, savedPath);
      return {
        content: `${head}\n${text}\n${tail}`,
        truncated: true,
        originalSize,
        originalLines,
        ...(savedPath ? { savedPath } : {}),
      };
    }
    const kept =
      parsed.direction === 'head'
        ? headLines(lines, parsed.maxLines, room)
        : tailLines(lines, parsed.maxLines, room);
    const keptLineCount = countLines(kept);
    const text = notice(originalSize, utf8Length(kept), originalLines - keptLineCount, savedPath);
    const content = parsed.direction === 'head' ? `${kept}\n${text}` : `${text}\n${kept}`;
    return { content, truncated: true, originalSize, originalLines, ...(savedPath ? { savedPath } : {}) };
  };
  if (!parsed.save) return cut();
  const { dir, writer, fileName } = parsed.save;
  const path = `${dir.replace(/[/\\]+$/, '')}/${fileName ?? defaultFileName()}`;
  return Promise.resolve(writer(path, output)).then(() => cut(path));
}
