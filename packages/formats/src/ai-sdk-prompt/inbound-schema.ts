import { jsonValueSchema, providerOptionsSchema } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/** Provider options every part may carry (a function: schemas are built on first use). */
const optionsField = () => ({ providerOptions: providerOptionsSchema.optional() });

/** Prompt file data: base64 text, bytes or a `URL`. */
export const promptData = lazySchema(() =>
  z.union([z.string(), z.instanceof(Uint8Array), z.instanceof(URL)]),
);

const textInput = lazySchema(() =>
  z.object({ type: z.literal('text'), text: z.string(), ...optionsField() }),
);

/** An inbound prompt file part. */
export const promptFileInput = lazySchema(() =>
  z.object({
    type: z.literal('file'),
    data: promptData,
    mediaType: z.string().min(1),
    filename: z.string().optional(),
    ...optionsField(),
  }),
);

/** An inbound prompt reasoning part. */
export const promptReasoningInput = lazySchema(() =>
  z.object({
    type: z.literal('reasoning'),
    text: z.string(),
    ...optionsField(),
  }),
);

/** An inbound prompt tool-call part. */
export const promptToolCallInput = lazySchema(() =>
  z.object({
    type: z.literal('tool-call'),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    input: jsonValueSchema,
    providerExecuted: z.boolean().optional(),
    ...optionsField(),
  }),
);

/** One part of a `content` tool output. */
export const promptToolContentInput = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string(), ...optionsField() }),
    z.object({
      type: z.literal('file-data'),
      data: z.string(),
      mediaType: z.string().min(1),
      filename: z.string().optional(),
      ...optionsField(),
    }),
    z.object({
      type: z.literal('file-url'),
      url: z.string().min(1),
      mediaType: z.string().optional(),
      ...optionsField(),
    }),
    z.object({
      type: z.literal('image-data'),
      data: z.string(),
      mediaType: z.string().min(1),
      ...optionsField(),
    }),
    z.object({ type: z.literal('image-url'), url: z.string().min(1), ...optionsField() }),
    z.object({
      type: z.enum(['file-id', 'image-file-id']),
      fileId: z.union([z.string(), z.record(z.string(), z.string())]),
      ...optionsField(),
    }),
    z.object({ type: z.literal('custom'), ...optionsField() }),
  ]),
);

const outputInput = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), value: z.string(), ...optionsField() }),
    z.object({ type: z.literal('json'), value: jsonValueSchema, ...optionsField() }),
    z.object({ type: z.literal('error-text'), value: z.string(), ...optionsField() }),
    z.object({ type: z.literal('error-json'), value: jsonValueSchema, ...optionsField() }),
    z.object({ type: z.literal('execution-denied'), reason: z.string().optional(), ...optionsField() }),
    z.object({ type: z.literal('content'), value: z.array(promptToolContentInput), ...optionsField() }),
  ]),
);

/** An inbound prompt tool-result part. */
export const promptToolResultInput = lazySchema(() =>
  z.object({
    type: z.literal('tool-result'),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    output: outputInput,
    ...optionsField(),
  }),
);

const approvalInput = lazySchema(() =>
  z.object({
    type: z.literal('tool-approval-response'),
    approvalId: z.string(),
    approved: z.boolean(),
    reason: z.string().optional(),
    ...optionsField(),
  }),
);

/** Schema of the AI SDK 6 provider-level prompt (`LanguageModelV3Prompt`) `fromAISDKPrompt` accepts. */
export const aiSdkPromptSchema = lazySchema(() =>
  z.array(
    z.discriminatedUnion('role', [
      z.object({ role: z.literal('system'), content: z.string(), ...optionsField() }),
      z.object({
        role: z.literal('user'),
        content: z.array(z.discriminatedUnion('type', [textInput, promptFileInput])),
        ...optionsField(),
      }),
      z.object({
        role: z.literal('assistant'),
        content: z.array(
          z.discriminatedUnion('type', [
            textInput,
            promptFileInput,
            promptReasoningInput,
            promptToolCallInput,
            promptToolResultInput,
          ]),
        ),
        ...optionsField(),
      }),
      z.object({
        role: z.literal('tool'),
        content: z.array(z.discriminatedUnion('type', [promptToolResultInput, approvalInput])),
        ...optionsField(),
      }),
    ]),
  ),
);
