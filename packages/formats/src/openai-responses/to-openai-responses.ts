import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  JsonValue,
  MessageInput,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultContentPart,
  UserMessage,
} from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { argumentsText } from '../openai-arguments.js';
import { providerItem } from '../provider-items.js';
import {
  baseToOptionsSchema,
  conversionError,
  isHttpUrl,
  LossReporter,
  outputAsText,
  parseConverterOptions,
  parseCoreMessages,
  providerOption,
  sniffImageMediaType,
  toDataUrl,
} from '../shared.js';
import { AFTER_REASONING, type ItemFields, OPENAI, storedFields } from './item-fields.js';
import type { OpenAIResponsesItem } from './wire-types.js';

/** Options of {@link toOpenAIResponses}. */
export const toOpenAIResponsesOptionsSchema = lazySchema(() =>
  baseToOptionsSchema.extend({
    /** Role of system messages; default: `developer` where the message came from one, else `system`. */
    systemRole: z.enum(['system', 'developer']).optional(),
  }),
);

/** Options of {@link toOpenAIResponses}. */
export type ToOpenAIResponsesOptions = z.input<typeof toOpenAIResponsesOptionsSchema>;

type Path = (string | number)[];
type Item = { [key: string]: JsonValue };

function imageUrl(image: string, mediaType: string | undefined, path: Path): string {
  if (isHttpUrl(image) || image.startsWith('data:')) return image;
  const type = mediaType ?? sniffImageMediaType(image);
  if (!type) conversionError(path, 'base64 image needs a mediaType (it could not be guessed from the data)');
  return toDataUrl(type, image);
}

/** An image: by its uploaded file's id when `image` is that id, else by URL or data URL. */
function imageToOpenAI(part: ImagePart, path: Path): Item {
  const out: Item = {
    type: 'input_image',
    detail: part.detail ?? 'auto',
    ...storedFields(part.providerOptions, 'part'),
  };
  const fileId = providerOption(part.providerOptions, OPENAI, 'fileId');
  if (typeof fileId === 'string') out['file_id'] = fileId;
  if (fileId !== part.image) out['image_url'] = imageUrl(part.image, part.mediaType, [...path, 'image']);
  return out;
}

function fileToOpenAI(part: FilePart): Item {
  const out: Item = { type: 'input_file', ...storedFields(part.providerOptions, 'part') };
  const fileId = providerOption(part.providerOptions, OPENAI, 'fileId');
  if (typeof fileId === 'string') out['file_id'] = fileId;
  // A file named by its id alone (no data) goes as the id; any other as its URL or its data.
  if (isHttpUrl(part.data)) out['file_url'] = part.data;
  else if (part.data !== '' || typeof fileId !== 'string')
    out['file_data'] = part.data.startsWith('data:') ? part.data : toDataUrl(part.mediaType, part.data);
  if (part.filename !== undefined) out['filename'] = part.filename;
  return out;
}

/** A part of a message or tool output; audio, which the API does not take here, is dropped. */
function contentToOpenAI(part: TextPart | ImagePart | FilePart, path: Path, losses: LossReporter): Item[] {
  if (part.type === 'image') return [imageToOpenAI(part, path)];
  if (part.type === 'text') return [textToOpenAI(part)];
  if (part.mediaType.startsWith('image/'))
    return [imageToOpenAI({ type: 'image', image: part.data, mediaType: part.mediaType }, path)];
  if (!part.mediaType.startsWith('audio/')) return [fileToOpenAI(part)];
  losses.report(
    path,
    'unsupported-media',
    'the Responses API takes no audio in messages or tool outputs; dropped',
  );
  return [];
}

function textToOpenAI(part: TextPart): Item {
  return { type: 'input_text', ...storedFields(part.providerOptions, 'part'), text: part.text };
}

function systemToOpenAI(message: SystemMessage, systemRole: 'system' | 'developer' | undefined): Item {
  const stored = storedFields(message.providerOptions, 'item') ?? {};
  const role = systemRole ?? (stored['role'] === 'developer' ? 'developer' : 'system');
  const content = typeof message.content === 'string' ? message.content : message.content.map(textToOpenAI);
  return { ...stored, role, content };
}

function userToOpenAI(message: UserMessage, index: number, losses: LossReporter): Item {
  const content =
    typeof message.content === 'string'
      ? message.content
      : message.content.flatMap((part, j) => contentToOpenAI(part, [index, 'content', j], losses));
  return { ...storedFields(message.providerOptions, 'item'), role: 'user', content };
}

/** The item fields kept on a part, without the reasoning mark; the id only beside its reasoning item. */
function itemFieldsFor(stored: ItemFields, reasoningSent: ReadonlySet<string>): ItemFields {
  const { [AFTER_REASONING]: after, ...fields } = stored;
  if (typeof after === 'string' && !reasoningSent.has(after)) delete fields['id'];
  return fields;
}

/** Writes the items of a conversation, remembering what later items depend on. */
class ItemWriter {
  readonly items: Item[] = [];
  readonly #losses: LossReporter;
  readonly #systemRole: 'system' | 'developer' | undefined;
  /** Reasoning items written, by id: a model item that followed one keeps its id only beside it. */
  readonly #reasoningSent = new Set<string>();
  /** Call ids of custom tool calls, whose outputs are `custom_tool_call_output`. */
  readonly #customCalls = new Set<string>();

  constructor(losses: LossReporter, systemRole: 'system' | 'developer' | undefined) {
    this.#losses = losses;
    this.#systemRole = systemRole;
  }

  add(message: ReturnType<typeof parseCoreMessages>[number], index: number): void {
    if (message.name !== undefined)
      this.#losses.report([index, 'name'], 'name', 'Responses API items have no name; dropped');
    switch (message.role) {
      case 'system':
        this.items.push(systemToOpenAI(message, this.#systemRole));
        return;
      case 'user':
        this.items.push(userToOpenAI(message, index, this.#losses));
        return;
      case 'assistant':
        this.#assistant(message, index);
        return;
      case 'tool':
        this.#tool(message, index);
    }
  }

  #assistant(message: AssistantMessage, index: number): void {
    if (typeof message.content === 'string') {
      this.items.push({ role: 'assistant', content: message.content });
      return;
    }
    const start = this.items.length;
    message.content.forEach((part, j) => {
      const path = [index, 'content', j];
      switch (part.type) {
        case 'text':
          this.#text(part, start);
          return;
        case 'reasoning':
          this.#reasoning(part, path, start);
          return;
        case 'tool-call':
          this.items.push(this.#toolCall(part));
          return;
        case 'opaque':
          if (part.provider === OPENAI) this.items.push(providerItem(part));
          else
            this.#losses.report(
              path,
              'provider-item',
              `the Responses API cannot carry a ${part.provider} ${part.kind} item; dropped`,
            );
          return;
        default:
          this.#losses.report(
            path,
            part.type,
            `Responses API assistant messages cannot hold ${part.type} parts; dropped`,
          );
      }
    });
    this.#dropTrailingReasoning(index, start);
  }

  /** A text part joins the message item it came from when that item is the newest one written. */
  #text(part: TextPart, start: number): void {
    const stored = storedFields(part.providerOptions, 'item');
    if (stored === undefined) {
      this.items.push({ role: 'assistant', content: part.text });
      return;
    }
    const own = storedFields(part.providerOptions, 'part');
    const fields = itemFieldsFor(stored, this.#reasoningSent);
    if (own === undefined) {
      this.items.push({ ...fields, content: part.text });
      return;
    }
    const content: Item =
      own['type'] === 'refusal' ? { ...own, refusal: part.text } : { ...own, text: part.text };
    const previous = this.items.length > start ? this.items.at(-1) : undefined;
    if (previous && Array.isArray(previous['content']) && sameFields(withoutContent(previous), fields))
      previous['content'].push(content);
    else this.items.push({ ...fields, content: [content] });
  }

  /** Reasoning goes back only as OpenAI's own item; the summary parts of one item join it again. */
  #reasoning(
    part: Extract<AssistantMessage['content'][number], { type: 'reasoning' }>,
    path: Path,
    start: number,
  ): void {
    const stored = storedFields(part.providerOptions, 'item');
    if (stored?.['type'] !== 'reasoning' || typeof stored['id'] !== 'string') {
      this.#losses.report(
        path,
        'reasoning',
        'the Responses API takes only reasoning items OpenAI wrote; dropped',
      );
      return;
    }
    const previous = this.items.length > start ? this.items.at(-1) : undefined;
    const item =
      previous?.['type'] === 'reasoning' && previous['id'] === stored['id']
        ? previous
        : this.items[this.items.push({ ...stored, summary: [] }) - 1]!;
    if (part.text !== '') (item['summary'] as JsonValue[]).push({ type: 'summary_text', text: part.text });
    this.#reasoningSent.add(stored['id']);
  }

  /**
   * A reasoning item ending its turn has lost the item it came before (the API refuses it alone);
   * it is dropped.
   */
  #dropTrailingReasoning(index: number, start: number): void {
    const last = this.items.length > start ? this.items.at(-1) : undefined;
    if (last?.['type'] !== 'reasoning') return;
    this.items.pop();
    this.#reasoningSent.delete(last['id'] as string);
    this.#losses.report(
      [index],
      'reasoning',
      'a reasoning item with nothing after it in its turn is refused by the API; dropped',
    );
  }

  #toolCall(part: ToolCallPart): Item {
    const fields = itemFieldsFor(storedFields(part.providerOptions, 'item') ?? {}, this.#reasoningSent);
    const custom = providerOption(part.providerOptions, OPENAI, 'toolType') === 'custom';
    if (custom) {
      this.#customCalls.add(part.toolCallId);
      return {
        type: 'custom_tool_call',
        ...fields,
        call_id: part.toolCallId,
        name: part.toolName,
        input: outputAsText(part.input),
      };
    }
    return {
      type: 'function_call',
      ...fields,
      call_id: part.toolCallId,
      name: part.toolName,
      arguments: argumentsText(part),
    };
  }

  #tool(message: ToolMessage, index: number): void {
    message.content.forEach((part, j) => {
      const path = [index, 'content', j];
      if (part.isError === true)
        this.#losses.report(
          [...path, 'isError'],
          'tool-error-flag',
          'Responses API tool outputs have no error flag; dropped',
        );
      const fields = storedFields(part.providerOptions, 'item') ?? {};
      const type = this.#customCalls.has(part.toolCallId)
        ? 'custom_tool_call_output'
        : 'function_call_output';
      const output = part.content
        ? part.content.flatMap((inner: ToolResultContentPart, k) =>
            contentToOpenAI(inner, [...path, 'content', k], this.#losses),
          )
        : outputAsText(part.output);
      this.items.push({ type, ...fields, call_id: part.toolCallId, output });
    });
  }
}

/** Fields kept from one item are written in one order, so equal fields serialise alike. */
function sameFields(a: ItemFields, b: ItemFields): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function withoutContent(item: Item): Item {
  const { content: _content, ...rest } = item;
  return rest;
}

/**
 * Converts core messages to OpenAI Responses API input items (`client.responses.create({ input })`).
 * Items `fromOpenAIResponses` read go back with the fields it kept (ids, citations, encrypted
 * reasoning, the items of OpenAI's own tools); an item that came after a reasoning item keeps its
 * id only while that reasoning item is sent too, as the API requires. Reasoning of other providers,
 * tool-result error flags and tool names have no place there: they are dropped and reported to `onLoss`.
 */
export function toOpenAIResponses(
  messages: readonly MessageInput[],
  options: ToOpenAIResponsesOptions = {},
): OpenAIResponsesItem[] {
  const opts = parseConverterOptions(toOpenAIResponsesOptionsSchema, options, 'toOpenAIResponses');
  const writer = new ItemWriter(new LossReporter(opts.onLoss), opts.systemRole);
  for (const [index, message] of parseCoreMessages(messages).entries()) writer.add(message, index);
  return writer.items as unknown as OpenAIResponsesItem[];
}
