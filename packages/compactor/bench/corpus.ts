/**
 * The quality-benchmark corpus: agent transcripts recorded from real work on this repository by
 * `corpus/build-corpus.ts` (committed under `corpus/transcripts/`). Shared with other packages'
 * benchmarks, which import this module by path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Message, parseMessages } from '@ctxguard/core';

/** One recorded transcript. */
export interface CorpusTranscript {
  id: string;
  description: string;
  messages: Message[];
}

/** Where the committed transcripts are. */
export function corpusDirectory(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'corpus', 'transcripts');
}

/** Loads and validates every transcript, sorted by id. */
export function loadCorpus(directory: string = corpusDirectory()): CorpusTranscript[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw = JSON.parse(readFileSync(join(directory, file), 'utf8')) as {
        id: string;
        description: string;
        messages: unknown;
      };
      return { id: raw.id, description: raw.description, messages: parseMessages(raw.messages) };
    });
}

/**
 * A long conversation made by chaining transcripts (system prompt once, tool-call ids made
 * unique per copy) until it has at least `count` messages, then cut at a turn boundary.
 */
export function longTranscript(corpus: readonly CorpusTranscript[], count: number): Message[] {
  const system = corpus[0]?.messages.find((m) => m.role === 'system');
  const out: Message[] = system ? [system] : [];
  for (let copy = 0; out.length < count; copy++) {
    const transcript = corpus[copy % corpus.length]!;
    for (const message of transcript.messages) {
      if (message.role === 'system') continue;
      out.push(renameCallIds(message, `c${copy}_`));
    }
  }
  // Cut before a user message so no tool call loses its result.
  let end = count;
  while (end > 1 && out[end]?.role !== undefined && out[end]!.role !== 'user') end--;
  return out.slice(0, Math.max(end, 2));
}

function renameCallIds(message: Message, prefix: string): Message {
  if (typeof message.content === 'string') return message;
  if (message.role !== 'assistant' && message.role !== 'tool') return message;
  const content = message.content.map((part) =>
    part.type === 'tool-call' || part.type === 'tool-result'
      ? { ...part, toolCallId: prefix + part.toolCallId }
      : part,
  );
  return { ...message, content } as Message;
}
