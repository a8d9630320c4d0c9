import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  Message,
  ProviderOptions,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultContentPart,
  ToolResultPart,
  UserMessage,
} from '@ctxguard/core';
import { InvalidInputError } from '@ctxguard/core';
import { COMPACTION_KIND, copyJsonValue, isRecord } from '@ctxguard/shared';
import type { z } from 'zod';
import { withParsedArguments } from '../openai-arguments.js';
import { opaqueItem } from '../provider-items.js';
import {
  conversionError,
  parseDataUrl,
  parseProviderMessages,
  ToolNames,
  toolResultContentText,
} from '../shared.js';
import {
  type inputContentInput,
  type messageItemInput,
  openAIResponsesInputSchema,
  type reasoningItemInput,
  type toolOutputItemInput,
} from './inbound-schema.js';
import {
  AFTER_REASONING,
  FOLLOWED_BY,
  type ItemFields,
  OPENAI,
  storedFields,
  withOpenAI,
} from './item-fields.js';

type InputContent = z.output<typeof inputContentInput>;
type MessageItem = z.output<typeof messageItemInput>;
type Item = Exclude<z.output<typeof openAIResponsesInputSchema>, string>[number];

/** The fields of `raw` other than `read` (which core holds): what goes back beside them. */
function restOf(raw: unknown, read: readonly string[]): ItemFields {
  const copy = copyJsonValue(raw);
  const rest: ItemFields = {};
  if (!copy.ok || copy.value === null || typeof copy.value !== 'object' || Array.isArray(copy.value))
    return rest;
  for (const [key, value] of Object.entries(copy.value)) if (!read.includes(key)) rest[key] = value;
  return rest;
}

/** `options` with the item's other fields under `openai[key]`, when it has any. */
function withRestOptions(
  options: ProviderOptions | undefined,
  key: string,
  rest: ItemFields,
): ProviderOptions | undefined {
  return Object.keys(rest).length > 0 ? withOpenAI(options, { [key]: rest }) : options;
}

/** `part` with the item's other fields under `providerOptions.openai.item`, when it has any. */
function withRest<P extends { providerOptions?: ProviderOptions | undefined }>(part: P, rest: ItemFields): P {
  const options = withRestOptions(part.providerOptions, 'item', rest);
  return options ? { ...part, providerOptions: options } : part;
}

/** `rest` without the fields that hold what the writer writes anyway. */
function omitted(rest: ItemFields, defaults: ItemFields): ItemFields {
  const out: ItemFields = {};
  for (const [key, value] of Object.entries(rest)) if (defaults[key] !== value) out[key] = value;
  return out;
}

const CORE_DETAILS: ReadonlySet<unknown> = new Set(['low', 'high']);

/** `options` with an uploaded file's id in `openai.fileId`, where every converter looks for it. */
function withFileId(options: ProviderOptions | undefined, fileId: string | null | undefined) {
  return fileId == null ? options : withOpenAI(options, { fileId });
}

/** An image; one given by an uploaded file's id holds the id as its `image` and in `openai.fileId`. */
function imageFromOpenAI(part: Extract<InputContent, { type: 'input_image' }>, raw: unknown): ImagePart {
  const url = part.image_url ?? undefined;
  const parsed = url === undefined ? undefined : parseDataUrl(url);
  const out: ImagePart =
    parsed && parsed.data !== ''
      ? { type: 'image', image: parsed.data, mediaType: parsed.mediaType }
      : { type: 'image', image: url ?? (part.file_id as string) };
  const read = ['type', 'image_url', 'file_id'];
  // `auto` is the default the writer writes back, so it is read as no detail at all.
  if (part.detail === 'auto') read.push('detail');
  else if (CORE_DETAILS.has(part.detail)) {
    out.detail = part.detail as NonNullable<ImagePart['detail']>;
    read.push('detail');
  }
  const options = withFileId(withRestOptions(undefined, 'part', restOf(raw, read)), part.file_id);
  if (options) out.providerOptions = options;
  return out;
}

function fileFromOpenAI(part: Extract<InputContent, { type: 'input_file' }>, raw: unknown): FilePart {
  const parsed = part.file_data === undefined ? undefined : parseDataUrl(part.file_data);
  const out: FilePart = parsed
    ? { type: 'file', data: parsed.data, mediaType: parsed.mediaType }
    : { type: 'file', data: part.file_data ?? part.file_url ?? '', mediaType: 'application/pdf' };
  if (part.filename !== undefined) out.filename = part.filename;
  const read = ['type', 'file_data', 'file_url', 'file_id', 'filename'];
  const options = withFileId(withRestOptions(undefined, 'part', restOf(raw, read)), part.file_id);
  if (options) out.providerOptions = options;
  return out;
}

/** A part of a message or tool output in core's terms; `raw` is the part as received. */
function contentFromOpenAI(part: InputContent, raw: unknown): TextPart | ImagePart | FilePart {
  switch (part.type) {
    case 'input_text': {
      const out: TextPart = { type: 'text', text: part.text };
      const options = withRestOptions(undefined, 'part', restOf(raw, ['type', 'text']));
      if (options) out.providerOptions = options;
      return out;
    }
    case 'input_image':
      return imageFromOpenAI(part, raw);
    case 'input_file':
      return fileFromOpenAI(part, raw);
  }
}

/** A user, system or developer message; text the model wrote in it is read as text. */
function inputMessageFromOpenAI(item: MessageItem, raw: Record<string, unknown>, index: number): Message {
  const rest = restOf(raw, ['role', 'content']);
  if (item.role === 'developer') rest['role'] = 'developer';
  const providerOptions = withRestOptions(undefined, 'item', rest);
  const rawParts = raw['content'] as unknown[];
  const content =
    typeof item.content === 'string'
      ? item.content
      : item.content.map((part, j): TextPart | ImagePart | FilePart => {
          if (part.type === 'output_text') return { type: 'text', text: part.text };
          if (part.type === 'refusal') return { type: 'text', text: part.refusal };
          return contentFromOpenAI(part, rawParts[j]);
        });
  if (item.role === 'system' || item.role === 'developer') {
    if (typeof content !== 'string') {
      const media = content.findIndex((part) => part.type !== 'text');
      if (media !== -1)
        conversionError(
          [index, 'content', media],
          'ctxguard keeps text only in system and developer messages: send images and files in a user message',
          'input',
        );
    }
    return {
      role: 'system',
      content: content as string | TextPart[],
      ...(providerOptions ? { providerOptions } : {}),
    };
  }
  const user: UserMessage = { role: 'user', content };
  if (providerOptions) user.providerOptions = providerOptions;
  return user;
}

/**
 * The parts of an assistant message item, each with the item's other fields (`openai.item`) and
 * its own (`openai.part`: its type, citations), so the item goes back as it came.
 */
function outputMessageParts(
  item: MessageItem,
  raw: Record<string, unknown>,
  index: number,
  after: string | undefined,
): TextPart[] {
  const rest = restOf(raw, ['content']);
  if (after !== undefined) rest[AFTER_REASONING] = after;
  // `{ role: 'assistant', content }` is what the writer makes of a text part without fields.
  if (typeof item.content === 'string')
    return [withRest<TextPart>({ type: 'text', text: item.content }, omitted(rest, { role: 'assistant' }))];
  const rawParts = raw['content'] as unknown[];
  return item.content.map((part, j) => {
    if (part.type !== 'output_text' && part.type !== 'input_text' && part.type !== 'refusal')
      conversionError(
        [index, 'content', j, 'type'],
        'an assistant message holds text and refusals only',
        'input',
      );
    const text = part.type === 'refusal' ? part.refusal : part.text;
    const own = restOf(rawParts[j], [part.type === 'refusal' ? 'refusal' : 'text']);
    return { type: 'text', text, providerOptions: { [OPENAI]: { item: rest, part: own } } };
  });
}

/**
 * One reasoning part per summary entry (one empty part for none); the first keeps the item's other
 * fields (id, encrypted reasoning), the rest its id, so the writer joins them into one item again.
 */
function reasoningParts(item: z.output<typeof reasoningItemInput>, raw: unknown): ReasoningPart[] {
  const rest = restOf(raw, ['summary']);
  const texts = item.summary.length > 0 ? item.summary.map((entry) => entry.text) : [''];
  return texts.map((text, k) => ({
    type: 'reasoning',
    text,
    providerOptions: { [OPENAI]: { item: k === 0 ? rest : { type: 'reasoning', id: item.id } } },
  }));
}

function toolCallFromOpenAI(
  item: Extract<Item, { type: 'function_call' | 'custom_tool_call' }>,
  raw: unknown,
  after: string | undefined,
): ToolCallPart {
  const custom = item.type === 'custom_tool_call';
  const text = custom ? item.input : item.arguments;
  const rest = restOf(raw, ['type', 'call_id', 'name', custom ? 'input' : 'arguments']);
  if (after !== undefined) rest[AFTER_REASONING] = after;
  const part = withRest<ToolCallPart>(
    { type: 'tool-call', toolCallId: item.call_id, toolName: item.name, input: text },
    rest,
  );
  // A custom call is marked as `fromOpenAIChat` marks one, so either writer sends it as one.
  if (custom) part.providerOptions = withOpenAI(part.providerOptions, { toolType: 'custom' });
  return custom ? part : withParsedArguments(part, text);
}

function toolResultFromOpenAI(
  item: z.output<typeof toolOutputItemInput>,
  raw: Record<string, unknown>,
  toolNames: ToolNames,
): ToolResultPart {
  const toolName = toolNames.get(item.call_id);
  const part: ToolResultPart = {
    type: 'tool-result',
    toolCallId: item.call_id,
    ...(toolName === undefined ? {} : { toolName }),
    output: '',
  };
  if (typeof item.output === 'string') part.output = item.output;
  else {
    const rawParts = raw['output'] as unknown[];
    const content = item.output.map(
      (inner, k) => contentFromOpenAI(inner, rawParts[k]) as ToolResultContentPart,
    );
    part.output = toolResultContentText(content);
    part.content = content;
  }
  // The output's type follows its call's: a custom call's output is a custom one.
  return withRest(part, restOf(raw, ['type', 'call_id', 'output']));
}

/** An assistant message that is one plain text reads as its string, as it was written. */
function withPlainText(message: Message): Message {
  if (message.role !== 'assistant' || typeof message.content === 'string' || message.content.length !== 1)
    return message;
  const [only] = message.content;
  return only?.type === 'text' && only.providerOptions === undefined
    ? { ...message, content: only.text }
    : message;
}

/** Builds the core messages item by item: a run of model items is one assistant message. */
class MessageBuilder {
  readonly out: Message[] = [];
  readonly #toolNames = new ToolNames();
  /** The fields of the newest reasoning item of the current assistant run, which the items after it answer. */
  #reasoning: ItemFields | undefined;

  /** The id of the reasoning item the next model item follows; the first such item is its follower. */
  #follows(id: unknown): string | undefined {
    const reasoning = this.#reasoning;
    if (reasoning === undefined) return undefined;
    // The first item after it is its follower; `null` when that item has no id to look for.
    if (!(FOLLOWED_BY in reasoning)) reasoning[FOLLOWED_BY] = typeof id === 'string' ? id : null;
    return reasoning['id'] as string;
  }

  add(item: Item, raw: Record<string, unknown>, index: number): void {
    switch (item.type) {
      case 'message':
        if (item.role === 'assistant')
          this.#assistantParts(outputMessageParts(item, raw, index, this.#follows(item.id)));
        else this.#push(inputMessageFromOpenAI(item, raw, index));
        return;
      case 'reasoning': {
        const parts = reasoningParts(item, raw);
        this.#assistantParts(parts);
        this.#reasoning = storedFields(parts[0]!.providerOptions, 'item');
        return;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const call = toolCallFromOpenAI(item, raw, this.#follows(item.id));
        this.#toolNames.add(call.toolCallId, call.toolName);
        this.#assistantParts([call]);
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const result = toolResultFromOpenAI(item, raw, this.#toolNames);
        const previous = this.out.at(-1);
        if (previous?.role === 'tool') previous.content.push(result);
        // A tool output does not end the model's turn: calls after it still follow its reasoning.
        else this.out.push({ role: 'tool', content: [result] });
        return;
      }
      default: {
        // A compaction item stands for what came before it, never for a reasoning item's follower.
        const part = opaqueItem(OPENAI, item.type, raw, [index], 'input');
        const after = item.type === COMPACTION_KIND ? undefined : this.#follows(raw['id']);
        if (after !== undefined) part.providerOptions = withOpenAI(undefined, { [AFTER_REASONING]: after });
        this.#assistantParts([part]);
      }
    }
  }

  #assistantParts(parts: Exclude<AssistantMessage['content'], string>): void {
    const previous = this.out.at(-1);
    if (previous?.role === 'assistant' && Array.isArray(previous.content)) previous.content.push(...parts);
    else this.out.push({ role: 'assistant', content: parts });
  }

  #push(message: Message): void {
    this.#reasoning = undefined;
    this.out.push(message);
  }
}

/**
 * Converts OpenAI Responses API input (a string, or items such as `response.output` and the
 * messages and tool outputs an app adds) to core messages, validating it first (errors name the
 * index and field). A run of model items (reasoning, messages, tool calls, items of OpenAI's own
 * tools) becomes one assistant message; consecutive tool outputs one tool message. What core has no
 * field for stays in `providerOptions.openai`, so `toOpenAIResponses` writes the items back.
 */
export function fromOpenAIResponses(input: unknown): Message[] {
  if (isRecord(input) && input['object'] === 'response')
    throw new InvalidInputError(
      'input: a whole Responses API response; pass your input items with its output added (`fromOpenAIResponses([...input, ...response.output])`)',
      [],
    );
  const items = parseProviderMessages(openAIResponsesInputSchema, input, 'input', 'openai-responses');
  if (typeof items === 'string') return [{ role: 'user', content: items }];
  const builder = new MessageBuilder();
  for (const [index, item] of items.entries())
    builder.add(item, (input as Record<string, unknown>[])[index]!, index);
  return builder.out.map(withPlainText);
}
