import type { LanguageModelV3Message } from '@ai-sdk/provider';
import { OPAQUE_PART_KEY } from '@ctxguard/formats';

/**
 * The prompt messages the middleware handles. AI SDK 7's `LanguageModelV4Message` has the same roles
 * and almost the same parts as AI SDK 6's; a dialect maps the few that differ (file data, tool-output
 * files, custom and reasoning-file parts) to and from the AI SDK 6 form the converters of
 * `@ctxguard/formats` read and write. Messages the app had are always sent as the app's own objects.
 */
export type PromptMessage = LanguageModelV3Message;

/** Which AI SDK prompt form a middleware speaks. */
export interface PromptDialect {
  /** A message of this version as the AI SDK 6 form `fromAISDKPrompt` reads. */
  readonly inbound: (message: PromptMessage) => PromptMessage;
  /** A message `toAISDKPrompt` wrote (AI SDK 6 form) as this version's. */
  readonly outbound: (message: PromptMessage) => PromptMessage;
}

/** AI SDK 6 (`LanguageModelV3Prompt`): the converters' own form. */
export const v3Dialect: PromptDialect = { inbound: (message) => message, outbound: (message) => message };

type Part = Record<string, unknown> & { type: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Bytes as base64 text. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** A JSON copy of a part (bytes as base64, which V4 file data also accepts). */
function jsonCopy(part: Part): Part {
  return JSON.parse(
    JSON.stringify(part, (_key, value: unknown) =>
      value instanceof Uint8Array ? bytesToBase64(value) : value,
    ),
  ) as Part;
}

/**
 * A part with no AI SDK 6 form, as a text part whose text is its JSON (what counters see) and which
 * carries the part in `providerOptions.ctxguard.opaque`: `toAISDKPrompt` gives the part back as it was.
 */
function opaqueText(part: Part): Part {
  const copy = jsonCopy(part);
  return {
    type: 'text',
    text: JSON.stringify(copy),
    providerOptions: { [OPAQUE_PART_KEY]: { opaque: copy } },
  };
}

/** V4 file data (`{ type: 'data' | 'url' | 'reference' | 'text', … }`) as V3 data, or undefined. */
function v3FileData(data: unknown): unknown {
  if (!isRecord(data)) return undefined;
  if (data['type'] === 'data') return data['data'];
  if (data['type'] === 'url') return data['url'];
  return undefined;
}

function fileIn(part: Part): Part {
  const data = v3FileData(part['data']);
  if (data === undefined) return opaqueText(part);
  // V4 names a media type known only by its top level (`image`) without V3's `/*`.
  const mediaType = part['mediaType'];
  if (typeof mediaType === 'string' && /^[a-z]+$/.test(mediaType))
    return { ...part, data, mediaType: `${mediaType}/*` };
  return { ...part, data };
}

function toolContentIn(inner: Part): Part {
  if (inner.type !== 'file') return inner;
  const data = inner['data'];
  const { data: _data, ...rest } = inner;
  if (isRecord(data) && data['type'] === 'data') {
    const value = data['data'];
    return {
      ...rest,
      type: 'file-data',
      data: value instanceof Uint8Array ? bytesToBase64(value) : value,
    };
  }
  if (isRecord(data) && data['type'] === 'url' && data['url'] instanceof URL)
    return { ...rest, type: 'file-url', url: data['url'].href };
  return opaqueText(inner);
}

function toolResultIn(part: Part): Part {
  const output = part['output'];
  if (!isRecord(output) || output['type'] !== 'content' || !Array.isArray(output['value'])) return part;
  return { ...part, output: { ...output, value: (output['value'] as Part[]).map(toolContentIn) } };
}

function partIn(part: Part): Part {
  switch (part.type) {
    case 'file':
      return fileIn(part);
    case 'tool-result':
      return toolResultIn(part);
    case 'custom':
    case 'reasoning-file':
      return opaqueText(part);
    default:
      return part;
  }
}

/** True when a V3 file's data (string, bytes or `URL`) still needs the V4 tagged form. */
function isV3Data(data: unknown): boolean {
  return typeof data === 'string' || data instanceof Uint8Array || data instanceof URL;
}

function fileOut(part: Part): Part {
  const data = part['data'];
  if (isV3Data(data)) {
    const out: Part = {
      ...part,
      data: data instanceof URL ? { type: 'url', url: data } : { type: 'data', data },
    };
    // V4 names a media type known only by its top level without the `/*`.
    const mediaType = part['mediaType'];
    if (typeof mediaType === 'string' && mediaType.endsWith('/*')) out['mediaType'] = mediaType.slice(0, -2);
    return out;
  }
  // An opaque part comes back as JSON: its URL is a string again.
  if (isRecord(data) && data['type'] === 'url' && typeof data['url'] === 'string')
    return { ...part, data: { ...data, url: new URL(data['url']) } };
  return part;
}

function toolContentOut(inner: Part): Part {
  const { type, ...rest } = inner;
  switch (type) {
    case 'file-data':
    case 'image-data':
      return { ...rest, type: 'file', data: { type: 'data', data: inner['data'] } };
    case 'file-url':
    case 'image-url': {
      const { url, mediaType, ...others } = rest;
      return {
        ...others,
        type: 'file',
        data: { type: 'url', url: new URL(String(url)) },
        mediaType: typeof mediaType === 'string' ? mediaType : type === 'image-url' ? 'image' : 'application',
      };
    }
    default:
      return inner;
  }
}

function toolResultOut(part: Part): Part {
  const output = part['output'];
  if (!isRecord(output) || output['type'] !== 'content' || !Array.isArray(output['value'])) return part;
  return { ...part, output: { ...output, value: (output['value'] as Part[]).map(toolContentOut) } };
}

function partOut(part: Part): Part {
  if (part.type === 'file' || part.type === 'reasoning-file') return fileOut(part);
  if (part.type === 'tool-result') return toolResultOut(part);
  return part;
}

function mapParts(message: PromptMessage, map: (part: Part) => Part): PromptMessage {
  if (typeof message.content === 'string') return message;
  const parts = message.content as unknown as Part[];
  let changed = false;
  const content = parts.map((part) => {
    const mapped = map(part);
    if (mapped !== part) changed = true;
    return mapped;
  });
  return changed ? ({ ...message, content } as unknown as PromptMessage) : message;
}

/**
 * AI SDK 7 (`LanguageModelV4Prompt`). Inbound: tagged file data becomes V3 data (bytes, base64 or a
 * `URL`), tool-output files become `file-data` / `file-url`; file references and inline text files,
 * custom parts and reasoning files, which have no AI SDK 6 form, travel as opaque text (counted as
 * their JSON, restored unchanged). Outbound: the reverse for the messages ctxguard wrote.
 */
export const v4Dialect: PromptDialect = {
  inbound: (message) => mapParts(message, partIn),
  outbound: (message) => mapParts(message, partOut),
};
