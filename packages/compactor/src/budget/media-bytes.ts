import { type ContentPart, type Message, parseInput } from '@ctxguard/core';
import { isRecord, lazySchema, partsOf, roleOf, utf8Length } from '@ctxguard/shared';
import { z } from 'zod';
import { frozenPrefixEnd } from '../messages/frozen-prefix.js';
import { withParts } from '../messages/message-parts.js';

const stripMediaArgumentsSchema = lazySchema(() =>
  z.object({
    messages: z.custom<readonly unknown[]>(Array.isArray, 'expected an array of messages'),
    maxBytes: z.number().int().nonnegative(),
  }),
);

/** Default byte ceiling of a request: below the 32 MB request limit of the strictest provider. */
export const DEFAULT_MAX_REQUEST_BYTES = 30 * 1024 * 1024;

const memo = new WeakMap<object, number>();

/** Bytes a message takes in a request (its JSON), media data included; memoised per message object. */
export function messageBytes(message: Message): number {
  if (typeof message !== 'object' || message === null) return 0;
  const known = memo.get(message);
  if (known !== undefined) return known;
  let bytes = 0;
  try {
    bytes = utf8Length(JSON.stringify(message) ?? '');
  } catch {
    bytes = 0;
  }
  memo.set(message, bytes);
  return bytes;
}

/** Bytes of a whole message list. */
export function requestBytes(messages: readonly Message[]): number {
  let sum = 0;
  for (const message of messages) sum += messageBytes(message);
  return sum;
}

/** Whether a content part is an image or a file (an attachment). */
export function isMedia(part: unknown): part is { type: 'image' | 'file'; [key: string]: unknown } {
  return isRecord(part) && (part.type === 'image' || part.type === 'file');
}

function mediaSize(part: Record<string, unknown>): number {
  const data = part.type === 'image' ? part.image : part.data;
  return typeof data === 'string' ? data.length : 0;
}

function describe(part: Record<string, unknown>): string {
  const kind = part.type === 'image' ? 'image' : 'file';
  const name = typeof part.filename === 'string' ? ` ${part.filename}` : '';
  const type = typeof part.mediaType === 'string' ? ` ${part.mediaType}` : '';
  const kb = Math.max(1, Math.round(mediaSize(part) / 1024));
  return `[${kind}${name}${type} (${kb} KB) omitted to fit the request size]`;
}

/** A placeholder part for a media part (`[image image/png (120 KB) omitted …]`). */
export function mediaPlaceholder(part: Record<string, unknown>): ContentPart {
  return { type: 'text', text: describe(part) };
}

/** What {@link stripMediaToFit} did. */
export interface StripMediaResult {
  messages: Message[];
  /** Media parts replaced by a placeholder. */
  mediaRemoved: number;
  bytesBefore: number;
  bytesAfter: number;
}

function stripMessage(message: Message, budget: { over: number; removed: number }): Message {
  let changed = false;
  const strip = (parts: readonly unknown[]): unknown[] =>
    parts.map((part) => {
      if (budget.over <= 0 || !isMedia(part) || mediaSize(part) < 1024) return part;
      budget.over -= mediaSize(part);
      budget.removed++;
      changed = true;
      return mediaPlaceholder(part);
    });
  let parts = strip(partsOf(message));
  if (roleOf(message) === 'tool') {
    parts = parts.map((part) => {
      if (!isRecord(part) || part.type !== 'tool-result' || !Array.isArray(part.content)) return part;
      const before = changed;
      changed = false;
      const content = strip(part.content);
      const touched = changed;
      changed = before || touched;
      return touched ? { ...part, content } : part;
    });
  }
  return changed ? withParts(message, parts as ContentPart[]) : message;
}

/**
 * Replaces images and files with text placeholders, oldest first (the system prompt and what
 * precedes a provider compaction item untouched), until the request is at most `maxBytes`: many
 * screenshots are caught before a provider's request-size limit, whatever their token count.
 */
export function stripMediaToFit(messages: readonly Message[], maxBytes: number): StripMediaResult {
  parseInput(stripMediaArgumentsSchema, { messages, maxBytes }, 'stripMediaToFit');
  const bytesBefore = requestBytes(messages);
  const budget = { over: bytesBefore - maxBytes, removed: 0 };
  if (budget.over <= 0)
    return { messages: messages.slice(), mediaRemoved: 0, bytesBefore, bytesAfter: bytesBefore };
  const frozen = frozenPrefixEnd(messages);
  const out = messages.map((message, index) =>
    index < frozen || roleOf(message) === 'system' ? message : stripMessage(message, budget),
  );
  return { messages: out, mediaRemoved: budget.removed, bytesBefore, bytesAfter: requestBytes(out) };
}
