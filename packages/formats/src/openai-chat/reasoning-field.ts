import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/**
 * Assistant fields the converters read or write themselves, and names that reach the object
 * prototype: reasoning written there would replace the answer, the role or a tool call, or vanish.
 */
const RESERVED_FIELDS: ReadonlySet<string> = new Set([
  'role',
  'content',
  'refusal',
  'tool_calls',
  'tool_call_id',
  'name',
  'function_call',
  'audio',
  '__proto__',
  'constructor',
  'prototype',
]);

/** The `reasoningField` option of both OpenAI chat converters: any field name the message does not already use. */
export const reasoningFieldSchema = lazySchema(() =>
  z
    .string()
    .min(1)
    .refine((name) => !RESERVED_FIELDS.has(name), {
      error: (issue) => `"${String(issue.input)}" is an OpenAI message field or reserved name; pick another`,
    }),
);
