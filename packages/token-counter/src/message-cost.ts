import { type FilePart, type ImagePart, InvalidInputError, type Message } from '@ctxguard/core';
import { describeKind } from '@ctxguard/shared';
import {
  base64ByteLength,
  decodeBase64,
  type ImageSize,
  inlineImageSize,
  mediaSource,
  pdfPageCount,
  utf8,
} from './media-data.js';
import { encodingForModel } from './model-encoding.js';

/** Counts the tokens of a text (an exact encoder or a heuristic). */
export type TextCounter = (text: string) => number;

/** What {@link messageTokens} needs: which model, and how to count text. */
export interface MessageCostOptions {
  provider: string;
  model: string;
  countText: TextCounter;
}

/** Framing tokens of every chat message (`<|start|>{role}<|message|>…<|end|>`), per OpenAI's cookbook. */
export const TOKENS_PER_MESSAGE = 3;
/** Extra token when a message carries a `name`. */
export const TOKENS_PER_NAME = 1;
/** Every reply is primed with `<|start|>assistant<|message|>`: 3 tokens per request. */
export const REPLY_PRIMING_TOKENS = 3;
/** Framing of one tool call on top of its name and JSON arguments. */
export const TOKENS_PER_TOOL_CALL = 3;
/** Pixel size assumed for an image whose size is neither given nor readable from its header. */
export const DEFAULT_IMAGE_SIZE: Readonly<ImageSize> = Object.freeze({ width: 1024, height: 1024 });
/** Tokens assumed for a file behind a URL (never fetched) or of a media type with no documented rule. */
export const DEFAULT_FILE_TOKENS = 1024;
/** Per-page cost of a PDF for providers that send each page as extracted text plus a page image (Anthropic documents 1,500–3,000). */
export const PDF_PAGE_TOKENS = 2250;
/** Per-page cost of a PDF on Gemini 2.x (a page is one 258-token image) and Gemini 3 (560). */
export const GEMINI_PDF_PAGE_TOKENS = 258;
/** Bytes per page assumed when a PDF's page tree is compressed and cannot be read. */
export const PDF_BYTES_PER_PAGE = 60_000;
/** Tokens per second of audio (Gemini documents 32) and of video (263). */
export const AUDIO_TOKENS_PER_SECOND = 32;
export const VIDEO_TOKENS_PER_SECOND = 263;

/** Which provider's image and file rules apply. */
export type MediaFamily = 'openai' | 'anthropic' | 'gemini';

/** Picks the media rules from the model name first (`claude-*`, `gemini-*`, `gpt-*`), then the provider. */
export function mediaFamily(provider: string, model: string): MediaFamily {
  const m = model.toLowerCase();
  if (m.includes('claude')) return 'anthropic';
  if (m.includes('gemini') || m.includes('gemma')) return 'gemini';
  if (/^(gpt|o\d|chatgpt|computer-use)/.test(m)) return 'openai';
  const p = provider.toLowerCase();
  if (p.includes('anthropic') || p === 'bedrock') return 'anthropic';
  if (p.includes('google') || p.includes('gemini') || p.includes('vertex')) return 'gemini';
  return 'openai';
}

interface TileRule {
  kind: 'tiles';
  base: number;
  tile: number;
}
interface PatchRule {
  kind: 'patches';
  multiplier: number;
}

/** OpenAI's per-model image pricing (platform docs, "Calculating costs"). */
function openAiImageRule(model: string): TileRule | PatchRule {
  const m = model.toLowerCase();
  if (m.startsWith('gpt-4.1-mini') || m.startsWith('gpt-5-mini'))
    return { kind: 'patches', multiplier: 1.62 };
  if (m.startsWith('gpt-4.1-nano') || m.startsWith('gpt-5-nano'))
    return { kind: 'patches', multiplier: 2.46 };
  if (m.startsWith('o4-mini')) return { kind: 'patches', multiplier: 1.72 };
  if (m.startsWith('gpt-4o-mini')) return { kind: 'tiles', base: 2833, tile: 5667 };
  if (m.startsWith('o1') || m.startsWith('o3')) return { kind: 'tiles', base: 75, tile: 150 };
  if (m.startsWith('computer-use')) return { kind: 'tiles', base: 65, tile: 129 };
  if (m.startsWith('gpt-5')) return { kind: 'tiles', base: 70, tile: 140 };
  return { kind: 'tiles', base: 85, tile: 170 };
}

/**
 * OpenAI image tokens. Tile models: `low` detail costs the base; otherwise fit in 2048×2048, shrink the
 * short side to 768, then base + tile × 512-px tiles. Patch models: 32-px patches capped at 1536, × multiplier.
 */
export function openAiImageTokens(
  width: number,
  height: number,
  detail: 'low' | 'high' | 'auto' | undefined,
  model: string,
): number {
  const rule = openAiImageRule(model);
  if (rule.kind === 'patches') return Math.ceil(openAiPatches(width, height) * rule.multiplier);
  if (detail === 'low') return rule.base;
  let w = width;
  let h = height;
  if (w > 2048 || h > 2048) {
    const scale = 2048 / Math.max(w, h);
    w = Math.floor(w * scale);
    h = Math.floor(h * scale);
  }
  const short = Math.min(w, h);
  if (short > 768) {
    const scale = 768 / short;
    w = Math.floor(w * scale);
    h = Math.floor(h * scale);
  }
  const tiles = Math.ceil(w / 512) * Math.ceil(h / 512);
  return rule.base + rule.tile * tiles;
}

function openAiPatches(width: number, height: number): number {
  const raw = Math.ceil(width / 32) * Math.ceil(height / 32);
  if (raw <= 1536) return raw;
  let scale = Math.sqrt((32 * 32 * 1536) / (width * height));
  scale *= Math.min(
    Math.floor((width * scale) / 32) / ((width * scale) / 32),
    Math.floor((height * scale) / 32) / ((height * scale) / 32),
  );
  const patches = Math.ceil((width * scale) / 32) * Math.ceil((height * scale) / 32);
  return Math.min(1536, patches);
}

/** Anthropic image tokens: shrink to a 1568-px long edge, then ceil(w × h / 750), at most ~1600 (their resize cap). */
export function anthropicImageTokens(width: number, height: number): number {
  let w = width;
  let h = height;
  const long = Math.max(w, h);
  if (long > 1568) {
    const scale = 1568 / long;
    w = Math.max(1, Math.round(w * scale));
    h = Math.max(1, Math.round(h * scale));
  }
  return Math.min(1600, Math.ceil((w * h) / 750));
}

/** Gemini image tokens: 2.x = 258 when both sides ≤ 384 px, else 258 per 768×768 tile; Gemini 3 = 1120 (default high media resolution). */
export function geminiImageTokens(width: number, height: number, model: string): number {
  if (/gemini-3/i.test(model)) return 1120;
  if (width <= 384 && height <= 384) return 258;
  return Math.ceil(width / 768) * Math.ceil(height / 768) * 258;
}

/** Pixel size of an image part: given dimensions, else its inline header, else {@link DEFAULT_IMAGE_SIZE}. */
export function imageSize(part: Pick<ImagePart, 'image' | 'width' | 'height'>): ImageSize {
  if (isPositive(part.width) && isPositive(part.height)) return { width: part.width, height: part.height };
  if (typeof part.image === 'string') {
    const source = mediaSource(part.image);
    if (source.kind === 'inline') {
      const size = inlineImageSize(source.base64);
      if (size) return size;
    }
  }
  return { ...DEFAULT_IMAGE_SIZE };
}

/** Tokens of one image for the provider/model (see the per-provider functions). */
export function imageTokens(
  part: Pick<ImagePart, 'image' | 'width' | 'height' | 'detail'>,
  provider: string,
  model: string,
): number {
  const { width, height } = imageSize(part);
  switch (mediaFamily(provider, model)) {
    case 'anthropic':
      return anthropicImageTokens(width, height);
    case 'gemini':
      return geminiImageTokens(width, height, model);
    default:
      return openAiImageTokens(width, height, part.detail, model);
  }
}

const TEXT_MEDIA =
  /^(text\/|application\/(json|xml|javascript|ecmascript|x-yaml|yaml|toml|x-sh|sql|graphql|ld\+json|x-ndjson)|[^;]*\+(json|xml))/i;

/**
 * Tokens of a file part. Text-like files are decoded and counted as text; PDFs cost per page
 * (pages read from the file, else estimated from its size); audio/video per second at Gemini's
 * documented rates (duration from WAV headers, else 128 kbit/s); images as images; anything
 * else, or a URL we cannot read offline, {@link DEFAULT_FILE_TOKENS}.
 */
export function fileTokens(
  part: Pick<FilePart, 'data' | 'mediaType' | 'filename'>,
  options: MessageCostOptions,
): number {
  const data = typeof part.data === 'string' ? part.data : '';
  const mediaType = (typeof part.mediaType === 'string' ? part.mediaType : '').toLowerCase();
  const source = mediaSource(data);
  const nameTokens =
    typeof part.filename === 'string' && part.filename.length > 0 ? options.countText(part.filename) : 0;
  if (mediaType.startsWith('image/')) {
    return nameTokens + imageTokens({ image: data }, options.provider, options.model);
  }
  if (TEXT_MEDIA.test(mediaType)) {
    if (source.kind === 'text') return nameTokens + options.countText(source.text);
    if (source.kind === 'inline') return nameTokens + options.countText(utf8(decodeBase64(source.base64)));
    return nameTokens + DEFAULT_FILE_TOKENS;
  }
  if (source.kind === 'url') return nameTokens + DEFAULT_FILE_TOKENS;
  const bytes = source.kind === 'inline' ? base64ByteLength(source.base64) : source.text.length;
  if (mediaType === 'application/pdf') {
    let pages: number | undefined;
    if (source.kind === 'inline') pages = pdfPageCount(decodeBase64(source.base64));
    pages ??= Math.max(1, Math.ceil(bytes / PDF_BYTES_PER_PAGE));
    const family = mediaFamily(options.provider, options.model);
    const perPage =
      family === 'gemini'
        ? /gemini-3/i.test(options.model)
          ? 560
          : GEMINI_PDF_PAGE_TOKENS
        : PDF_PAGE_TOKENS;
    return nameTokens + pages * perPage;
  }
  if (mediaType.startsWith('audio/') || mediaType.startsWith('video/')) {
    const seconds = mediaSeconds(source, bytes);
    const rate = mediaType.startsWith('audio/') ? AUDIO_TOKENS_PER_SECOND : VIDEO_TOKENS_PER_SECOND;
    return nameTokens + Math.ceil(seconds * rate);
  }
  return nameTokens + DEFAULT_FILE_TOKENS;
}

function mediaSeconds(source: ReturnType<typeof mediaSource>, bytes: number): number {
  if (source.kind === 'inline') {
    const head = decodeBase64(source.base64, 64);
    const isWav = head[0] === 0x52 && head[1] === 0x49 && head[8] === 0x57 && head[9] === 0x41;
    if (isWav) {
      const byteRate =
        (head[28] ?? 0) | ((head[29] ?? 0) << 8) | ((head[30] ?? 0) << 16) | ((head[31] ?? 0) << 24);
      if (byteRate > 0) return Math.max(0, bytes - 44) / byteRate;
    }
  }
  return (bytes * 8) / 128_000;
}

/** Text of a JSON value as a provider receives it: strings verbatim, everything else as compact JSON. */
export function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return safeString(value);
  }
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '';
  }
}

/** `counter` when it is a function; a clear error naming `field` otherwise (these helpers take no defaults). */
function textCounterOf(counter: unknown, field: string): TextCounter {
  if (typeof counter === 'function') return counter as TextCounter;
  throw new InvalidInputError(
    `${field}: expected a function (text) => tokens, e.g. (text) => encoder.encode(text).length; received ${describeKind(counter)}`,
    field.split('.'),
  );
}

/** Tokens of one tool call: its name, its arguments text and {@link TOKENS_PER_TOOL_CALL}. */
export function toolCallTokens(toolName: string, argumentsText: string, countText: TextCounter): number {
  return TOKENS_PER_TOOL_CALL + countText(toolName) + countText(argumentsText);
}

/**
 * Tokens of one message: content (every part type) plus framing — {@link TOKENS_PER_MESSAGE}, the role,
 * and the name (+{@link TOKENS_PER_NAME}). A tool message counts each result as its own chat message.
 * Odd shapes never throw: unknown parts are counted as their JSON text, an OpenAI Chat message's
 * `tool_calls` as the tool calls they are.
 */
export function messageTokens(message: Message, options: MessageCostOptions): number {
  const countText = textCounterOf(options?.countText, 'options.countText');
  const record = (message ?? {}) as unknown as Record<string, unknown>;
  const role = typeof record.role === 'string' ? record.role : '';
  const content = record.content;
  let total = 0;
  if (role === 'tool' && Array.isArray(content)) {
    let results = 0;
    for (const part of content) {
      const p = (part ?? {}) as Record<string, unknown>;
      if (p.type !== 'tool-result') {
        total += partTokens(part, options);
        continue;
      }
      results++;
      // A result is framed like a legacy `function` message: the tool name replaces the name field (net −1).
      total += TOKENS_PER_MESSAGE + countText(role) + countText(jsonText(p.output));
      if (typeof p.toolName === 'string' && p.toolName.length > 0)
        total += countText(p.toolName) + TOKENS_PER_NAME - 2;
    }
    if (results === 0) total += TOKENS_PER_MESSAGE + countText(role);
  } else {
    total += TOKENS_PER_MESSAGE + countText(role);
    if (typeof content === 'string') total += countText(content);
    else if (Array.isArray(content)) for (const part of content) total += partTokens(part, options);
    else if (content !== undefined && content !== null) total += countText(jsonText(content));
  }
  if (typeof record.name === 'string' && record.name.length > 0)
    total += countText(record.name) + TOKENS_PER_NAME;
  if (Array.isArray(record.tool_calls)) total += openAIToolCallsTokens(record.tool_calls, countText);
  return total;
}

/**
 * Tokens of the tool calls an OpenAI Chat message carries beside its content (a message not
 * converted with `fromOpenAIChat`), priced as the tool-call parts they convert to.
 */
function openAIToolCallsTokens(calls: readonly unknown[], countText: TextCounter): number {
  let total = 0;
  for (const call of calls) {
    // A function call's arguments, or a custom tool call's free-form input.
    const record = (call ?? {}) as { function?: unknown; custom?: unknown };
    const fn = (record.function ?? record.custom ?? {}) as Record<string, unknown>;
    const given = fn.arguments ?? fn.input ?? {};
    const args = typeof given === 'string' ? given : jsonText(given);
    total += toolCallTokens(typeof fn.name === 'string' ? fn.name : '', args, countText);
  }
  return total;
}

/** Tokens of one content part, without message framing. */
export function partTokens(part: unknown, options: MessageCostOptions): number {
  const { countText } = options;
  if (typeof part === 'string') return countText(part);
  if (part === null || typeof part !== 'object') return part === undefined ? 0 : countText(safeString(part));
  const p = part as Record<string, unknown>;
  switch (p.type) {
    case 'text':
    case 'reasoning':
      return countText(typeof p.text === 'string' ? p.text : jsonText(p.text ?? ''));
    case 'tool-call':
      return toolCallTokens(
        typeof p.toolName === 'string' ? p.toolName : '',
        jsonText(p.input ?? {}),
        countText,
      );
    case 'tool-result':
      return countText(jsonText(p.output ?? ''));
    case 'image':
      return imageTokens(
        {
          image: typeof p.image === 'string' ? p.image : '',
          ...(isPositive(p.width) ? { width: p.width } : {}),
          ...(isPositive(p.height) ? { height: p.height } : {}),
          ...(p.detail === 'low' || p.detail === 'high' || p.detail === 'auto' ? { detail: p.detail } : {}),
        },
        options.provider,
        options.model,
      );
    case 'file':
      return fileTokens(
        {
          data: typeof p.data === 'string' ? p.data : '',
          mediaType: typeof p.mediaType === 'string' ? p.mediaType : '',
          ...(typeof p.filename === 'string' ? { filename: p.filename } : {}),
        },
        options,
      );
    case 'opaque':
      return opaqueTokens(p.data, countText);
    default:
      return countText(jsonText(part));
  }
}

/** Bytes of an encrypted provider payload assumed per token of the context it stands for. */
export const ENCRYPTED_BYTES_PER_TOKEN = 4;

/**
 * Tokens of a provider item carried opaquely (a compaction item). A readable summary (Anthropic's
 * `content`) is counted as text. An `encrypted_content` payload is a stated estimate: its decoded
 * bytes / {@link ENCRYPTED_BYTES_PER_TOKEN}, as if it enciphered about 4 bytes of context per token
 * (providers document no rule; usage reported after it replaces the estimate). Anything else counts
 * as its JSON text.
 */
export function opaqueTokens(data: unknown, countText: TextCounter): number {
  if (data === null || typeof data !== 'object') return countText(jsonText(data ?? ''));
  const d = data as Record<string, unknown>;
  let total = 0;
  if (typeof d.content === 'string') total += countText(d.content);
  if (typeof d.encrypted_content === 'string')
    total += Math.ceil(Math.floor((d.encrypted_content.length * 3) / 4) / ENCRYPTED_BYTES_PER_TOKEN);
  if (typeof d.content !== 'string' && typeof d.encrypted_content !== 'string')
    total += countText(jsonText(d));
  return total;
}

/** Tokens a request costs once, whatever its messages: the reply priming (3 for every provider we know). */
export function conversationOverhead(_provider: string): number {
  return REPLY_PRIMING_TOKENS;
}

/** Per-model constants of the cookbook's tool-definition formula. */
interface ToolFormula {
  funcInit: number;
  propInit: number;
  propKey: number;
  enumInit: number;
  enumItem: number;
  funcEnd: number;
}

const O200K_TOOLS: ToolFormula = {
  funcInit: 7,
  propInit: 3,
  propKey: 3,
  enumInit: -3,
  enumItem: 3,
  funcEnd: 12,
};
const CL100K_TOOLS: ToolFormula = {
  funcInit: 10,
  propInit: 3,
  propKey: 3,
  enumInit: -3,
  enumItem: 3,
  funcEnd: 12,
};

/** Normalised view of a tool definition in any common shape. */
interface ToolShape {
  name: string;
  description: string;
  properties: Record<string, unknown>;
}

function toolShape(tool: unknown): ToolShape | undefined {
  if (tool === null || typeof tool !== 'object') return undefined;
  const t = tool as Record<string, unknown>;
  const fn = (
    t.type === 'function' && t.function && typeof t.function === 'object' ? t.function : t
  ) as Record<string, unknown>;
  if (typeof fn.name !== 'string') return undefined;
  const schema = (fn.parameters ?? fn.input_schema ?? fn.inputSchema ?? {}) as Record<string, unknown>;
  const properties =
    schema && typeof schema === 'object' && schema.properties && typeof schema.properties === 'object'
      ? schema.properties
      : {};
  return {
    name: fn.name,
    description: typeof fn.description === 'string' ? fn.description : '',
    properties: properties as Record<string, unknown>,
  };
}

/**
 * Tokens of a request's tool definitions by the OpenAI cookbook formula (name:description, then
 * `key:type:description` per property, enum items, fixed per-function and per-request constants;
 * `gpt-4`/`gpt-3.5` models use the cl100k constants). Nested object properties are counted the same way.
 * Tools in no known shape are counted as their JSON text.
 */
export function toolDefinitionsTokens(
  tools: readonly unknown[],
  countText: TextCounter,
  options: { model?: string } = {},
): number {
  const count = textCounterOf(countText, 'countText');
  if (!Array.isArray(tools) || tools.length === 0) return 0;
  const f = encodingForModel(options.model ?? '') === 'cl100k_base' ? CL100K_TOOLS : O200K_TOOLS;
  let total = 0;
  for (const tool of tools) {
    const shape = toolShape(tool);
    if (!shape) {
      total += count(jsonText(tool));
      continue;
    }
    total += f.funcInit + count(`${shape.name}:${stripPeriod(shape.description)}`);
    total += propertiesTokens(shape.properties, count, f, 0);
  }
  return total + f.funcEnd;
}

function propertiesTokens(
  properties: Record<string, unknown>,
  countText: TextCounter,
  f: ToolFormula,
  depth: number,
): number {
  const keys = Object.keys(properties);
  if (keys.length === 0 || depth > 16) return 0;
  let total = f.propInit;
  for (const key of keys) {
    const prop = (properties[key] && typeof properties[key] === 'object' ? properties[key] : {}) as Record<
      string,
      unknown
    >;
    total += f.propKey;
    if (Array.isArray(prop.enum)) {
      total += f.enumInit;
      for (const item of prop.enum) total += f.enumItem + countText(jsonText(item));
    }
    const type = Array.isArray(prop.type)
      ? prop.type.join('|')
      : typeof prop.type === 'string'
        ? prop.type
        : 'object';
    const description = typeof prop.description === 'string' ? prop.description : '';
    total += countText(`${key}:${type}:${stripPeriod(description)}`);
    if (prop.properties && typeof prop.properties === 'object') {
      total += propertiesTokens(prop.properties as Record<string, unknown>, countText, f, depth + 1);
    }
    if (prop.items && typeof prop.items === 'object') {
      const items = prop.items as Record<string, unknown>;
      if (items.properties && typeof items.properties === 'object') {
        total += propertiesTokens(items.properties as Record<string, unknown>, countText, f, depth + 1);
      }
    }
  }
  return total;
}

function stripPeriod(text: string): string {
  return text.endsWith('.') ? text.slice(0, -1) : text;
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
