import { type JsonValue, jsonValueSchema, type ToolCallPart } from '@ctxguard/core';
import { providerOption, withProviderOption } from './shared.js';

/**
 * `part` with its OpenAI argument text parsed into `input`; the model's own formatting is kept in
 * `providerOptions.openai.rawArguments` when it differs from the compact JSON. Text that is not
 * JSON, that parses to a string (read back as raw text), or that core cannot hold (`1e999` becomes
 * Infinity; nesting deeper than core's limit) stays the text.
 */
export function withParsedArguments(part: ToolCallPart, text: string): ToolCallPart {
  const parsed = parsedArguments(text);
  if (parsed === undefined || typeof parsed === 'string') return { ...part, input: text };
  const out: ToolCallPart = { ...part, input: parsed };
  if (JSON.stringify(parsed) !== text) {
    const options = withProviderOption(part.providerOptions, 'openai', 'rawArguments', text);
    if (options) out.providerOptions = options;
  }
  return out;
}

function parsedArguments(text: string): JsonValue | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const checked = jsonValueSchema.safeParse(parsed);
  return checked.success ? checked.data : undefined;
}

/** The OpenAI argument text of a tool call: the model's own formatting while the input is unchanged. */
export function argumentsText(part: ToolCallPart): string {
  // A string input is raw argument text (kept when a model sent arguments that were not valid JSON).
  if (typeof part.input === 'string') return part.input;
  const compact = JSON.stringify(part.input);
  const raw = providerOption(part.providerOptions, 'openai', 'rawArguments');
  if (typeof raw === 'string') {
    try {
      if (JSON.stringify(JSON.parse(raw)) === compact) return raw;
    } catch {
      // Stale or corrupt: fall back to the input itself.
    }
  }
  return compact;
}
