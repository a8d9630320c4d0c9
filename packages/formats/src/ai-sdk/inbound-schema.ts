import { jsonValueSchema, providerOptionsSchema } from '@ctxguard/core';
import { lazySchema, tolerantObject } from '@ctxguard/shared';
import { z } from 'zod';

/** AI SDK data content: base64 or URL text, bytes, or a `URL`. */
export const dataContent = lazySchema(() =>
  z.union([z.string(), z.instanceof(Uint8Array), z.instanceof(ArrayBuffer), z.instanceof(URL)]),
);
/** Provider options every part may carry (a function: schemas are built on first use). */
const optionsField = () => ({ providerOptions: providerOptionsSchema.optional() });
const textInput = lazySchema(() =>
  tolerantObject({ type: z.literal('text'), text: z.string(), ...optionsField() }),
);
/** An inbound image part. */
export const imageInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('image'),
    // Core images are never empty, so neither are the bytes they come from.
    image: z.union([
      z.string().min(1),
      z.instanceof(Uint8Array).refine((bytes) => bytes.byteLength > 0, 'must not be empty'),
      z.instanceof(ArrayBuffer).refine((bytes) => bytes.byteLength > 0, 'must not be empty'),
      z.instanceof(URL),
    ]),
    mediaType: z.string().min(1).optional(),
    ...optionsField(),
  }),
);
/** An inbound file part. */
export const fileInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('file'),
    data: dataContent,
    mediaType: z.string().min(1),
    filename: z.string().optional(),
    ...optionsField(),
  }),
);
/** An inbound reasoning part. */
export const reasoningInput = lazySchema(() =>
  tolerantObject({ type: z.literal('reasoning'), text: z.string(), ...optionsField() }),
);
const toolCallInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('tool-call'),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    input: jsonValueSchema,
    providerExecuted: z.boolean().optional(),
    ...optionsField(),
  }),
);
const outputInput = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), value: z.string() }),
    z.object({ type: z.literal('json'), value: jsonValueSchema }),
    z.object({ type: z.literal('error-text'), value: z.string() }),
    z.object({ type: z.literal('error-json'), value: jsonValueSchema }),
    z.object({
      type: z.literal('content'),
      value: z.array(
        z.discriminatedUnion('type', [
          z.object({ type: z.literal('text'), text: z.string() }),
          z.object({ type: z.literal('media'), data: z.string().min(1), mediaType: z.string().min(1) }),
        ]),
      ),
    }),
  ]),
);
/** An inbound tool-result part. */
export const toolResultInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('tool-result'),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    output: outputInput,
    ...optionsField(),
  }),
);

/** An inbound AI SDK 6 custom part (`openai.compaction` is the one `fromAISDK` reads). */
export const customInput = lazySchema(() =>
  tolerantObject({ type: z.literal('custom'), kind: z.string().min(1), ...optionsField() }),
);

/** Schema of the AI SDK v5 `ModelMessage`s `fromAISDK` accepts. */
export const aiSdkMessagesSchema = lazySchema(() =>
  z.array(
    z.discriminatedUnion('role', [
      tolerantObject({ role: z.literal('system'), content: z.string(), ...optionsField() }),
      tolerantObject({
        role: z.literal('user'),
        content: z.union([
          z.string(),
          z.array(z.discriminatedUnion('type', [textInput, imageInput, fileInput])),
        ]),
        ...optionsField(),
      }),
      tolerantObject({
        role: z.literal('assistant'),
        content: z.union([
          z.string(),
          z.array(
            z.discriminatedUnion('type', [
              textInput,
              fileInput,
              reasoningInput,
              toolCallInput,
              toolResultInput,
              customInput,
            ]),
          ),
        ]),
        ...optionsField(),
      }),
      tolerantObject({
        role: z.literal('tool'),
        content: z.array(toolResultInput).min(1),
        ...optionsField(),
      }),
    ]),
  ),
);
