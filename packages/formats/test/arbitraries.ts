import type { JsonValue, MessageInput, ProviderOptions } from '@ctxguard/core';
import fc from 'fast-check';

/** A real 1×1 PNG, so media-type sniffing works on generated images. */
export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PDF = 'JVBERi0xLjQKJSVFT0YK';

const utf8Base64 = (text: string): string => {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
};

const text = fc.string({ maxLength: 24 });
const toolName = fc.constantFrom('read_file', 'run_tests', 'search', 'get_weather');
const jsonObject: fc.Arbitrary<{ [key: string]: JsonValue }> = fc.dictionary(
  fc.string({ maxLength: 8 }),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
  { maxKeys: 4 },
);

type Part = { type: string; [key: string]: unknown };

// ---------------------------------------------------------------------------------------------
// Portable conversations: the subset every format carries exactly.

const portableMedia: fc.Arbitrary<Part> = fc.oneof(
  fc.constant({ type: 'image', image: PNG, mediaType: 'image/png' }),
  fc.webUrl().map((url) => ({ type: 'image', image: url })),
  fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: undefined }).map((filename) => ({
    type: 'file',
    data: PDF,
    mediaType: 'application/pdf',
    ...(filename ? { filename } : {}),
  })),
  text.map((body) => ({ type: 'file', data: utf8Base64(body), mediaType: 'text/plain' })),
);

/** User content: a string, or parts with at least one attachment (a lone text part would come back as a string). */
const portableUserContent = fc.oneof(
  text,
  fc
    .tuple(
      fc.array(
        fc.oneof(
          text.map((t) => ({ type: 'text', text: t })),
          portableMedia,
        ),
        { maxLength: 3 },
      ),
      portableMedia,
      fc.nat(),
    )
    .map(([parts, media, at]) => {
      const out = [...parts];
      out.splice(at % (out.length + 1), 0, media);
      return out;
    }),
);

interface Step {
  text: string | null;
  calls: { name: string; input: { [key: string]: JsonValue }; output: string }[];
}

const step: fc.Arbitrary<Step> = fc.record({
  text: fc.option(text, { nil: null }),
  calls: fc.array(fc.record({ name: toolName, input: jsonObject, output: text }), { maxLength: 3 }),
});

/**
 * Conversations every converter carries exactly: an optional leading system string; user turns
 * followed by agent steps (assistant text then tool calls; all results of a step in one tool
 * message); string tool outputs; tool inputs that are JSON objects.
 */
export const portableConversation: fc.Arbitrary<MessageInput[]> = fc
  .record({
    system: fc.option(text, { nil: null }),
    turns: fc.array(
      fc.record({ user: portableUserContent, steps: fc.array(step, { minLength: 1, maxLength: 3 }) }),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
  })
  .map(({ system, turns }) => {
    let next = 0;
    const messages: MessageInput[] = [];
    if (system !== null) messages.push({ role: 'system', content: system });
    for (const turn of turns) {
      messages.push({ role: 'user', content: turn.user } as MessageInput);
      for (const { text: said, calls } of turn.steps) {
        if (calls.length === 0) {
          messages.push({ role: 'assistant', content: said ?? '' });
          break;
        }
        const ids = calls.map(() => `call_${next++}`);
        messages.push({
          role: 'assistant',
          content: [
            ...(said === null ? [] : [{ type: 'text' as const, text: said }]),
            ...calls.map((c, i) => ({
              type: 'tool-call' as const,
              toolCallId: ids[i] as string,
              toolName: c.name,
              input: c.input,
            })),
          ],
        });
        messages.push({
          role: 'tool',
          content: calls.map((c, i) => ({
            type: 'tool-result' as const,
            toolCallId: ids[i] as string,
            toolName: c.name,
            output: c.output,
          })),
        });
      }
    }
    return messages;
  });

// ---------------------------------------------------------------------------------------------
// Any conversation: every feature, in any order (what real histories and compaction produce).

const cacheControl: ProviderOptions = { anthropic: { cacheControl: { type: 'ephemeral' } } };
const providerOptions: fc.Arbitrary<ProviderOptions | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant(cacheControl),
  jsonObject.map((values) => ({ acme: values })),
);

function withOptions<T extends object>(arb: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc
    .tuple(arb, providerOptions)
    .map(([part, options]) => (options ? { ...part, providerOptions: options } : part));
}

const textPart = withOptions(text.map((t) => ({ type: 'text', text: t })));
const imagePart = withOptions(
  fc.oneof(
    fc.record({
      type: fc.constant('image'),
      image: fc.constantFrom(PNG, `data:image/png;base64,${PNG}`),
      detail: fc.constantFrom('low', 'high', 'auto'),
    }),
    fc.record({
      type: fc.constant('image'),
      image: fc.constant('PHN2Zz48L3N2Zz4='),
      mediaType: fc.constant('image/svg+xml'),
    }),
    fc.webUrl().map((url) => ({ type: 'image', image: url, width: 64, height: 48 })),
  ),
);
const filePart = withOptions(
  fc.oneof(
    portableMedia.filter((p) => p.type === 'file'),
    fc.constant({ type: 'file', data: 'UklGRg==', mediaType: 'audio/wav' }),
    fc.constant({ type: 'file', data: PNG, mediaType: 'image/png' }),
    fc.constant({ type: 'file', data: 'AAEC', mediaType: 'application/octet-stream', filename: 'blob.bin' }),
    fc.webUrl().map((url) => ({ type: 'file', data: url, mediaType: 'application/pdf' })),
  ),
);
const reasoningPart = fc.oneof(
  text.map((t) => ({ type: 'reasoning', text: t })),
  fc
    .tuple(text, fc.string({ minLength: 1, maxLength: 10 }))
    .map(([t, signature]) => ({ type: 'reasoning', text: t, signature })),
  fc
    .string({ minLength: 1, maxLength: 10 })
    .map((data) => ({ type: 'reasoning', text: '', redactedData: data })),
);
const callId = fc.stringMatching(/^[a-z0-9_]{1,8}$/);
const toolCallPart = withOptions(
  fc.record({ type: fc.constant('tool-call'), toolCallId: callId, toolName, input: jsonObject }),
);
const toolResultPart = withOptions(
  fc.oneof(
    fc.record({
      type: fc.constant('tool-result'),
      toolCallId: callId,
      toolName,
      output: text,
      isError: fc.boolean(),
    }),
    fc.record({
      type: fc.constant('tool-result'),
      toolCallId: callId,
      toolName,
      output: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
    }),
    fc
      .tuple(
        callId,
        toolName,
        fc.array(
          fc.oneof(
            textPart,
            imagePart.filter((p) => (p as Part)['mediaType'] !== 'image/svg+xml'),
          ),
          { maxLength: 3 },
        ),
        fc.boolean(),
      )
      .map(([toolCallId, name, content, isError]) => ({
        type: 'tool-result',
        toolCallId,
        toolName: name,
        output: content.flatMap((p) => (p.type === 'text' ? [(p as Part)['text'] as string] : [])).join('\n'),
        content,
        ...(isError ? { isError } : {}),
      })),
  ),
);

const common = fc.record(
  { name: fc.string({ maxLength: 6 }), providerOptions: providerOptions.filter((o) => o !== undefined) },
  { requiredKeys: [] },
);

const anyMessage: fc.Arbitrary<MessageInput> = fc
  .tuple(
    fc.oneof(
      fc.record({
        role: fc.constant('system'),
        content: fc.oneof(text, fc.array(textPart, { maxLength: 3 })),
      }),
      fc.record({
        role: fc.constant('user'),
        content: fc.oneof(text, fc.array(fc.oneof(textPart, imagePart, filePart), { maxLength: 4 })),
      }),
      fc.record({
        role: fc.constant('assistant'),
        content: fc.oneof(
          text,
          fc.array(fc.oneof(textPart, reasoningPart, toolCallPart, imagePart), { maxLength: 4 }),
        ),
      }),
      fc.record({
        role: fc.constant('tool'),
        content: fc.array(toolResultPart, { minLength: 1, maxLength: 3 }),
      }),
    ),
    common,
  )
  .map(([message, extra]) => ({ ...message, ...extra }) as MessageInput);

/** Any valid conversation the converters accept without a ConversionError, in any order. */
export const anyConversation: fc.Arbitrary<MessageInput[]> = fc.array(anyMessage, { maxLength: 8 });

/** Loosely typed part, for tests that poke at generated messages. */
export type LoosePart = Part;
