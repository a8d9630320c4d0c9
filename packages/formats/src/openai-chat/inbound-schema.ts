import { lazySchema, tolerantObject } from '@ctxguard/shared';
import { z } from 'zod';

const textPartInput = lazySchema(() => z.object({ type: z.literal('text'), text: z.string() }));
const refusalPartInput = lazySchema(() => z.object({ type: z.literal('refusal'), refusal: z.string() }));
/** An inbound `image_url` part. */
export const imagePartInput = lazySchema(() =>
  z.object({
    type: z.literal('image_url'),
    image_url: z.object({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
  }),
);
const audioPartInput = lazySchema(() =>
  z.object({
    type: z.literal('input_audio'),
    input_audio: z.object({ data: z.string(), format: z.enum(['wav', 'mp3']) }),
  }),
);
/** An inbound `file` part: `file_data` or `file_id`. */
export const filePartInput = lazySchema(() =>
  z.object({
    type: z.literal('file'),
    file: z
      .object({
        file_data: z.string().optional(),
        file_id: z.string().min(1).optional(),
        filename: z.string().optional(),
      })
      .refine(
        (file) => file.file_data !== undefined || file.file_id !== undefined,
        'needs file_data or file_id',
      ),
  }),
);
/** An inbound tool call: `function` or `custom`. */
export const toolCallInput = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({
      id: z.string().min(1),
      type: z.literal('function'),
      function: z.object({ name: z.string().min(1), arguments: z.string() }),
    }),
    z.object({
      id: z.string().min(1),
      type: z.literal('custom'),
      custom: z.object({ name: z.string().min(1), input: z.string() }),
    }),
  ]),
);

// Messages let unknown fields through (OpenAI adds some) but refuse misspelt ones (`tool_call`).
const systemInput = (role: 'system' | 'developer') =>
  tolerantObject({
    role: z.literal(role),
    content: z.union([z.string(), z.array(textPartInput)]),
    name: z.string().optional(),
  });
const userInput = lazySchema(() =>
  tolerantObject({
    role: z.literal('user'),
    content: z.union([
      z.string(),
      z.array(z.discriminatedUnion('type', [textPartInput, imagePartInput, audioPartInput, filePartInput])),
    ]),
    name: z.string().optional(),
  }),
);
/** An inbound assistant message; unknown fields are kept so a custom reasoning field can be read. */
export const assistantInput = lazySchema(() =>
  tolerantObject({
    role: z.literal('assistant'),
    content: z
      .union([z.string(), z.array(z.discriminatedUnion('type', [textPartInput, refusalPartInput]))])
      .nullish(),
    refusal: z.string().nullish(),
    tool_calls: z.array(toolCallInput).nullish(),
    name: z.string().optional(),
    function_call: z.unknown().optional(),
    audio: z.unknown().optional(),
    /** Azure OpenAI "On Your Data" citations: accepted, not carried over (named, as it is one slip from `content`). */
    context: z.unknown().optional(),
  }),
);
/** An inbound `tool` message. */
export const toolInput = lazySchema(() =>
  tolerantObject({
    role: z.literal('tool'),
    tool_call_id: z.string().min(1),
    content: z.union([z.string(), z.array(textPartInput)]),
    /** Azure OpenAI "On Your Data" citations: accepted, not carried over (named, as it is one slip from `content`). */
    context: z.unknown().optional(),
  }),
);
const functionInput = lazySchema(() =>
  tolerantObject({
    role: z.literal('function'),
    name: z.string(),
    content: z.string().nullable(),
  }),
);

/** Schema of the OpenAI Chat Completions messages `fromOpenAIChat` accepts. */
export const openAIChatMessagesSchema = lazySchema(() =>
  z.array(
    z.discriminatedUnion('role', [
      systemInput('system'),
      systemInput('developer'),
      userInput,
      assistantInput,
      toolInput,
      functionInput,
    ]),
  ),
);
