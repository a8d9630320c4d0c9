import { isRecord, lazySchema, tolerantObject } from '@ctxguard/shared';
import { z } from 'zod';

/** Items the model's own tools wrote (OpenAI ran them): carried as opaque parts and sent back as received. */
export const SERVER_ITEM_TYPES = [
  'compaction',
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'tool_search_call',
  'tool_search_output',
] as const;

/** Items a client answers with something core has no part for: refused with what to do instead. */
export const UNSUPPORTED_ITEM_TYPES: Readonly<Record<string, string>> = {
  item_reference:
    'an item_reference points to an item OpenAI stored, which ctxguard cannot count: pass the item itself',
  computer_call: 'computer use calls are not supported',
  computer_call_output: 'computer use calls are not supported',
  local_shell_call: 'local shell calls are not supported; a function tool round-trips',
  local_shell_call_output: 'local shell calls are not supported; a function tool round-trips',
  shell_call: 'shell tool calls are not supported; a function tool round-trips',
  shell_call_output: 'shell tool calls are not supported; a function tool round-trips',
  apply_patch_call: 'apply_patch calls are not supported; a function tool round-trips',
  apply_patch_call_output: 'apply_patch calls are not supported; a function tool round-trips',
  mcp_approval_response: 'MCP approval responses are not supported',
};

const inputTextInput = lazySchema(() => tolerantObject({ type: z.literal('input_text'), text: z.string() }));
/** An inbound `input_image` part: a URL, a data URL or an uploaded file's id. */
export const inputImageInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('input_image'),
    image_url: z.string().min(1).nullish(),
    file_id: z.string().min(1).nullish(),
    detail: z.string().optional(),
  }).refine((part) => part.image_url != null || part.file_id != null, 'needs image_url or file_id'),
);
/** An inbound `input_file` part: inline data, a URL or an uploaded file's id. */
export const inputFileInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('input_file'),
    file_data: z.string().optional(),
    file_url: z.string().min(1).optional(),
    file_id: z.string().min(1).nullish(),
    filename: z.string().optional(),
  }).refine(
    (part) => part.file_data !== undefined || part.file_url !== undefined || part.file_id != null,
    'needs file_data, file_url or file_id',
  ),
);
/** What a user, system or developer message, or a tool's output, may hold. */
export const inputContentInput = lazySchema(() =>
  z.discriminatedUnion('type', [inputTextInput, inputImageInput, inputFileInput]),
);
const outputTextInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('output_text'),
    text: z.string(),
    annotations: z.array(z.unknown()).optional(),
  }),
);
const refusalInput = lazySchema(() => tolerantObject({ type: z.literal('refusal'), refusal: z.string() }));

/** An inbound message item: `role` and `content`, `type: 'message'` optional. */
export const messageItemInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('message'),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([
      z.string(),
      z.array(
        z.discriminatedUnion('type', [
          inputTextInput,
          outputTextInput,
          refusalInput,
          inputImageInput,
          inputFileInput,
        ]),
      ),
    ]),
    id: z.string().optional(),
    status: z.string().optional(),
  }),
);
const functionCallInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('function_call'),
    call_id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.string(),
    id: z.string().optional(),
  }),
);
const customToolCallInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('custom_tool_call'),
    call_id: z.string().min(1),
    name: z.string().min(1),
    input: z.string(),
    id: z.string().optional(),
  }),
);
/** An inbound `function_call_output` or `custom_tool_call_output` item. */
export const toolOutputItemInput = lazySchema(() =>
  tolerantObject({
    type: z.enum(['function_call_output', 'custom_tool_call_output']),
    call_id: z.string().min(1),
    output: z.union([z.string(), z.array(inputContentInput)]),
  }),
);
/** An inbound `reasoning` item: its summary is read; the encrypted content goes back as it came. */
export const reasoningItemInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('reasoning'),
    id: z.string().min(1),
    summary: z.array(tolerantObject({ type: z.literal('summary_text'), text: z.string() })),
    encrypted_content: z.string().nullish(),
  }),
);
/** An item of OpenAI's own tools, read only for its type (it goes back as received). */
const serverItemInput = lazySchema(() => z.looseObject({ type: z.enum(SERVER_ITEM_TYPES) }));

const KNOWN_TYPES = new Set<string>([
  'message',
  'function_call',
  'custom_tool_call',
  'function_call_output',
  'custom_tool_call_output',
  'reasoning',
  ...SERVER_ITEM_TYPES,
]);

/** A message written without `type` (`{ role, content }`) reads as a message item. */
function withMessageType(item: unknown): unknown {
  return isRecord(item) && !('type' in item) && 'role' in item ? { ...item, type: 'message' } : item;
}

/** One inbound item; a type ctxguard does not convert is refused with what to do instead. */
const itemInput = lazySchema(() =>
  z
    .unknown()
    .superRefine(refuseMisplaced)
    .pipe(
      z.preprocess(
        withMessageType,
        z
          .looseObject({ type: z.string() })
          .superRefine((item, ctx) => {
            if (KNOWN_TYPES.has(item.type)) return;
            ctx.addIssue({
              code: 'custom',
              path: ['type'],
              message:
                UNSUPPORTED_ITEM_TYPES[item.type] ??
                `unknown item type "${item.type}"; ctxguard converts messages, function and custom tool calls and their outputs, reasoning, compaction and the items of OpenAI's own tools`,
            });
          })
          .pipe(
            z.discriminatedUnion('type', [
              messageItemInput,
              functionCallInput,
              customToolCallInput,
              toolOutputItemInput,
              reasoningItemInput,
              serverItemInput,
            ]),
          ),
      ),
    ),
);

/** What an app puts in its input by mistake: the whole response, or its output without spreading it. */
function misplacedInputMessage(value: unknown): string | undefined {
  if (isRecord(value) && value['object'] === 'response' && Array.isArray(value['output']))
    return 'a whole Responses API response: add its items (`input.push(...response.output)`)';
  if (Array.isArray(value)) return 'a list inside the input: spread it (`input.push(...response.output)`)';
  return undefined;
}

function refuseMisplaced(value: unknown, ctx: z.RefinementCtx): void {
  const message = misplacedInputMessage(value);
  if (message !== undefined) ctx.addIssue({ code: 'custom', message });
}

/** Schema of the OpenAI Responses API input `fromOpenAIResponses` accepts: a string or a list of items. */
export const openAIResponsesInputSchema = lazySchema(() => z.union([z.string(), z.array(itemInput)]));
