import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  JsonValue,
  MessageInput,
  ReasoningPart,
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
  fileDataUrl,
  imageUrl,
  isHttpUrl,
  LossReporter,
  outputAsText,
  parseConverterOptions,
  parseCoreMessages,
  providerOption,
} from '../shared.js';
import { AFTER_REASONING, FOLLOWED_BY, type ItemFields, OPENAI, storedFields } from './item-fields.js';
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
  else if (part.data !== '' || typeof fileId !== 'string') out['file_data'] = fileDataUrl(part);
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

/** An item of an assistant message, with the reasoning item it followed when it was read. */
interface Planned {
  item: Item;
  after?: string | undefined;
  /** An item of OpenAI's own tools: its id is required, so it goes only beside its reasoning item. */
  providerItem?: true;
}

/** Writes the items of a conversation, remembering what later items depend on. */
class ItemWriter {
  readonly items: Item[] = [];
  readonly #losses: LossReporter;
  readonly #systemRole: 'system' | 'developer' | undefined;
  /** Reasoning items sent, by id: a model item of the same turn keeps its id only beside its own. */
  readonly #reasoningKept = new Set<string>();
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
        if (typeof message.content === 'string')
          this.items.push({ role: 'assistant', content: message.content });
        else this.items.push(...this.#settled(this.#planned(message.content, index), index));
        return;
      case 'tool':
        this.#tool(message, index);
    }
  }

  /** The items of an assistant message as stored, ids and reasoning marks included. */
  #planned(parts: Exclude<AssistantMessage['content'], string>, index: number): Planned[] {
    const plan: Planned[] = [];
    parts.forEach((part, j) => {
      const path = [index, 'content', j];
      switch (part.type) {
        case 'text':
          addText(plan, part);
          return;
        case 'reasoning':
          this.#addReasoning(plan, part, path);
          return;
        case 'tool-call':
          plan.push(marked(this.#toolCall(part)));
          return;
        case 'opaque':
          if (part.provider === OPENAI)
            plan.push({ item: providerItem(part), after: afterOf(part.providerOptions), providerItem: true });
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
    return plan;
  }

  /** Reasoning goes back only as OpenAI's own item; the summary parts of one item join it again. */
  #addReasoning(plan: Planned[], part: ReasoningPart, path: Path): void {
    const stored = storedFields(part.providerOptions, 'item');
    if (stored?.['type'] !== 'reasoning' || typeof stored['id'] !== 'string') {
      this.#losses.report(
        path,
        'reasoning',
        'the Responses API takes only reasoning items OpenAI wrote; dropped',
      );
      return;
    }
    const previous = plan.at(-1)?.item;
    const item = previous?.['type'] === 'reasoning' && previous['id'] === stored['id'] ? previous : undefined;
    const target = item ?? plan[plan.push({ item: { ...stored, summary: [] } }) - 1]!.item;
    if (part.text !== '') (target['summary'] as JsonValue[]).push({ type: 'summary_text', text: part.text });
  }

  /**
   * The API refuses a reasoning item without the item that followed it, and an item sent with its
   * id without the reasoning item it followed. So a reasoning item goes only with its follower, and
   * an item that followed one keeps its id only beside it (an item of OpenAI's own tools, which
   * cannot go without its id, is dropped). Both are reported.
   */
  #settled(plan: Planned[], index: number): Item[] {
    const ids = new Set(plan.map(({ item }) => item['id']));
    const kept = this.#reasoningKept;
    const out: Item[] = [];
    plan.forEach(({ item, after, providerItem: required }, k) => {
      if (item['type'] === 'reasoning') {
        const { [FOLLOWED_BY]: follower, ...reasoning } = item;
        if (typeof follower === 'string' ? ids.has(follower) : k < plan.length - 1) {
          kept.add(reasoning['id'] as string);
          out.push(reasoning);
        } else
          this.#losses.report(
            [index],
            'reasoning',
            'a reasoning item whose following item is gone is refused by the API; dropped',
          );
        return;
      }
      if (after === undefined || kept.has(after)) out.push(item);
      else if (required)
        this.#losses.report(
          [index],
          'provider-item',
          `a ${String(item['type'])} item without the reasoning item it followed is refused by the API; dropped`,
        );
      else {
        const { id: _id, ...rest } = item;
        out.push(rest);
      }
    });
    return out;
  }

  #toolCall(part: ToolCallPart): Item {
    const fields = storedFields(part.providerOptions, 'item') ?? {};
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

/** A text part joins the message item it came from when that item is the newest one planned. */
function addText(plan: Planned[], part: TextPart): void {
  const stored = storedFields(part.providerOptions, 'item');
  if (stored === undefined) {
    plan.push({ item: { role: 'assistant', content: part.text } });
    return;
  }
  const { [AFTER_REASONING]: after, ...fields } = stored;
  const own = storedFields(part.providerOptions, 'part');
  if (own === undefined) {
    plan.push({
      item: { role: 'assistant', ...fields, content: part.text },
      after: after as string | undefined,
    });
    return;
  }
  const content: Item =
    own['type'] === 'refusal' ? { ...own, refusal: part.text } : { ...own, text: part.text };
  const previous = plan.at(-1)?.item;
  if (previous && Array.isArray(previous['content']) && sameFields(withoutContent(previous), fields))
    previous['content'].push(content);
  else plan.push({ item: { ...fields, content: [content] }, after: after as string | undefined });
}

/** A tool call planned with the reasoning mark it was read with, taken off the item. */
function marked(item: Item): Planned {
  const { [AFTER_REASONING]: after, ...rest } = item;
  return { item: rest, after: typeof after === 'string' ? after : undefined };
}

/** The reasoning item an opaque part followed when it was read. */
function afterOf(options: AssistantMessage['providerOptions']): string | undefined {
  const after = providerOption(options, OPENAI, AFTER_REASONING);
  return typeof after === 'string' ? after : undefined;
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
