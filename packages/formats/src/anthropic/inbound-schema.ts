import { jsonValueSchema } from '@ctxguard/core';
import { lazySchema, tolerantObject } from '@ctxguard/shared';
import { z } from 'zod';

/** Anthropic `cache_control`: read from requests and checked in `providerOptions.anthropic.cacheControl`. */
export const cacheControlSchema = lazySchema(() =>
  z.object({
    type: z.literal('ephemeral'),
    ttl: z.enum(['5m', '1h']).optional(),
  }),
);

/** Anthropic's cache mark (a function: schemas are built on first use). */
const cacheField = () => ({ cache_control: cacheControlSchema.nullish() });
/** An inbound text block. */
export const textInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('text'),
    text: z.string(),
    /** Citations the API returned with the text, sent back as they were. */
    citations: z.array(z.record(z.string(), jsonValueSchema)).nullish(),
    ...cacheField(),
  }),
);
/** An inbound image block (base64 or URL). */
export const imageInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('image'),
    source: z.discriminatedUnion('type', [
      z.object({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) }),
      z.object({ type: z.literal('url'), url: z.string().min(1) }),
    ]),
    ...cacheField(),
  }),
);
/** An inbound document block (PDF base64 or URL, or plain text). */
export const documentInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('document'),
    source: z.discriminatedUnion('type', [
      z.object({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: z.string() }),
      z.object({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
      z.object({ type: z.literal('url'), url: z.string().min(1) }),
    ]),
    title: z.string().nullish(),
    context: z.string().nullish(),
    citations: z.object({ enabled: z.boolean().optional() }).nullish(),
    ...cacheField(),
  }),
);
const toolUseInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('tool_use'),
    id: z.string().min(1),
    name: z.string().min(1),
    input: jsonValueSchema,
    /** Who made the call: the model itself, or code it ran (programmatic tool calling). */
    caller: z.record(z.string(), jsonValueSchema).nullish(),
    ...cacheField(),
  }),
);
/** An inbound `tool_result` block. */
export const toolResultInput = lazySchema(() =>
  tolerantObject({
    type: z.literal('tool_result'),
    tool_use_id: z.string().min(1),
    content: z
      .union([z.string(), z.array(z.discriminatedUnion('type', [textInput, imageInput, documentInput]))])
      .optional(),
    is_error: z.boolean().optional(),
    ...cacheField(),
  }),
);
const thinkingInput = lazySchema(() =>
  tolerantObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
);
const redactedThinkingInput = lazySchema(() =>
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
);

/**
 * An inbound server-compaction block. Only its type and summary are checked; `fromAnthropic`
 * keeps the block as received (every field, in order) in an opaque part.
 */
export const compactionInput = lazySchema(() =>
  z.looseObject({
    type: z.literal('compaction'),
    content: z.string().nullish(),
  }),
);
/** Any block an inbound user message may hold. */
export const userBlockInput = lazySchema(() =>
  z.discriminatedUnion('type', [textInput, imageInput, documentInput, toolResultInput]),
);
/**
 * The assistant blocks of Anthropic's server tools (web search and fetch, code execution, tool
 * search, the advisor), its MCP connector and container uploads: `fromAnthropic` carries them as
 * received, for the API reads them back in the next request.
 */
export const SERVER_BLOCK_TYPES = [
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'advisor_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
] as const;

/** The blocks only the beta Messages API takes: server compaction, the MCP connector's, the advisor's. */
export const BETA_BLOCK_TYPES: ReadonlySet<string> = new Set([
  'compaction',
  'advisor_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
]);

/** An inbound server tool's block: its type and cache mark checked, the rest carried as received. */
const serverBlockInput = lazySchema(() =>
  z.looseObject({ type: z.enum(SERVER_BLOCK_TYPES), ...cacheField() }),
);

/** Any block an inbound assistant message may hold. */
export const assistantBlockInput = lazySchema(() =>
  z.discriminatedUnion('type', [
    textInput,
    toolUseInput,
    thinkingInput,
    redactedThinkingInput,
    compactionInput,
    serverBlockInput,
  ]),
);

/** Names other APIs give the system prompt, which Anthropic's request calls `system`: refused, never dropped. */
const SYSTEM_ELSEWHERE = ['system_prompt', 'systemPrompt', 'system_message', 'systemMessage', 'instructions'];

/** An issue at each key that names the system prompt as another API does, when `system` is not given. */
function systemNamedElsewhere(request: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (request['system'] !== undefined) return;
  for (const key of SYSTEM_ELSEWHERE)
    if (request[key] !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: 'an Anthropic request names its system prompt `system`',
      });
}

/** Schema of the Anthropic request fields `fromAnthropic` reads (`system` and `messages`). */
export const anthropicPromptSchema = lazySchema(() =>
  // The rest of a request (model, max_tokens, tools, …) passes; a misspelt `system` is refused.
  tolerantObject({
    system: z.union([z.string(), z.array(textInput)]).optional(),
    messages: z.array(
      z.discriminatedUnion('role', [
        tolerantObject({ role: z.literal('user'), content: z.union([z.string(), z.array(userBlockInput)]) }),
        tolerantObject({
          role: z.literal('assistant'),
          content: z.union([z.string(), z.array(assistantBlockInput)]),
        }),
        tolerantObject({ role: z.literal('system'), content: z.union([z.string(), z.array(textInput)]) }),
      ]),
    ),
  }).superRefine(systemNamedElsewhere),
);
