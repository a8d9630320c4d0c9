import { readFile } from 'node:fs/promises';
import {
  CtxGuardError,
  fromAISDK,
  fromAnthropic,
  fromOpenAIChat,
  InvalidInputError,
  type Message,
} from 'ctxguard';

/** Message formats a transcript file may use. */
export const transcriptFormats = ['auto', 'openai', 'anthropic', 'ai-sdk'] as const;

/** A transcript file's format, or `auto` to tell it from the messages. */
export type TranscriptFormat = (typeof transcriptFormats)[number];

/** A transcript loaded into the core message model. */
export interface Transcript {
  /** The file it came from. */
  file: string;
  /** The format it was read as. */
  format: Exclude<TranscriptFormat, 'auto'>;
  /** Every message, the system prompt first when there is one. */
  messages: Message[];
}

/** A transcript file that cannot be read: the message names the file, the message index and the field. */
export class TranscriptError extends CtxGuardError {
  override readonly name = 'TranscriptError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_input', message, options);
  }
}

const OPENAI_HINTS = new Set(['tool_calls', 'tool_call_id', 'function_call', 'refusal']);
const OPENAI_PART_HINTS = new Set(['image_url', 'input_audio']);
const ANTHROPIC_PARTS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document']);
const AI_SDK_PARTS = new Set(['tool-call', 'tool-result', 'reasoning', 'file']);

/** Which format `messages` are in, from the fields only one format uses; OpenAI when nothing tells. */
export function detectFormat(document: {
  system?: unknown;
  messages: readonly unknown[];
}): Exclude<TranscriptFormat, 'auto'> {
  for (const message of document.messages) {
    if (typeof message !== 'object' || message === null) continue;
    const record = message as Record<string, unknown>;
    if (record.role === 'developer' || Object.keys(record).some((key) => OPENAI_HINTS.has(key)))
      return 'openai';
    if (!Array.isArray(record.content)) continue;
    for (const part of record.content as unknown[]) {
      const type = (part as { type?: unknown } | null)?.type;
      if (typeof type !== 'string') continue;
      if (ANTHROPIC_PARTS.has(type)) return 'anthropic';
      if (AI_SDK_PARTS.has(type)) return 'ai-sdk';
      if (OPENAI_PART_HINTS.has(type)) return 'openai';
    }
  }
  return document.system !== undefined ? 'anthropic' : 'openai';
}

/** `[...]` or `{ messages, system? }`: the messages and the top-level system prompt, if any. */
function documentOf(json: unknown, file: string): { system?: unknown; messages: unknown[] } {
  if (Array.isArray(json)) return { messages: json };
  if (typeof json === 'object' && json !== null && Array.isArray((json as { messages?: unknown }).messages)) {
    const { system, messages } = json as { system?: unknown; messages: unknown[] };
    return system === undefined ? { messages } : { system, messages };
  }
  throw new TranscriptError(
    `transcript ${file}: expected an array of messages or an object with a "messages" array`,
  );
}

/** Converts one document in `format` to core messages; a top-level `system` string leads the list. */
function convert(
  document: { system?: unknown; messages: unknown[] },
  format: Transcript['format'],
): Message[] {
  if (format === 'anthropic') return fromAnthropic(document as never);
  const system = typeof document.system === 'string' ? [{ role: 'system', content: document.system }] : [];
  const list = [...system, ...document.messages];
  return format === 'openai' ? fromOpenAIChat(list as never) : fromAISDK(list as never);
}

/** The validation message with paths re-based on the file's own indices. */
function describeInvalid(error: InvalidInputError, shift: number): string {
  const text = error.message.replace(/^anthropic\./, '');
  if (shift === 0) return text;
  return text.replace(/\bmessages\[(\d+)\]/g, (_, index: string) => `messages[${Number(index) - shift}]`);
}

/**
 * Reads a transcript file (OpenAI Chat, Anthropic Messages or AI SDK messages, as an array or as
 * `{ messages, system? }`). A file that is not valid JSON or whose messages do not validate
 * throws a {@link TranscriptError} naming the file, the message index and the field.
 */
export async function loadTranscript(file: string, format: TranscriptFormat = 'auto'): Promise<Transcript> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new TranscriptError(`transcript ${file}: cannot read it (${(error as Error).message})`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, '')); // a byte order mark, as some Windows editors save
  } catch (error) {
    throw new TranscriptError(`transcript ${file}: not JSON (${(error as Error).message})`, { cause: error });
  }
  const document = documentOf(json, file);
  const chosen = format === 'auto' ? detectFormat(document) : format;
  const shift = chosen !== 'anthropic' && typeof document.system === 'string' ? 1 : 0;
  try {
    const messages = convert(document, chosen);
    if (messages.length === 0) throw new TranscriptError(`transcript ${file}: messages: the list is empty`);
    return { file, format: chosen, messages };
  } catch (error) {
    if (error instanceof TranscriptError) throw error;
    if (error instanceof InvalidInputError)
      throw new TranscriptError(`transcript ${file} (${chosen}): ${describeInvalid(error, shift)}`, {
        cause: error,
      });
    throw new TranscriptError(`transcript ${file} (${chosen}): ${(error as Error).message}`, {
      cause: error,
    });
  }
}
