import {
  type JsonValue,
  type ProviderOptions,
  providerOptionsSchema,
  type ReasoningPart,
  type ToolResultPart,
} from '@ctxguard/core';
import { CTXGUARD_PROVIDER, isAISDKOutput, OWN_OUTPUT_MARK } from '@ctxguard/shared';
import { providerOption, withoutProviderOption, withProviderOption, withProviderOptions } from './shared.js';

/** What the AI SDK converters keep under {@link CTXGUARD_PROVIDER}. */
export type AISDKExtra = 'filename' | 'jsonOutput' | typeof OWN_OUTPUT_MARK | 'outputProviderOptions';

/** `options` with `ctxguard[extra] = value` (unchanged when value is undefined). */
export function withExtra(
  options: ProviderOptions | undefined,
  extra: AISDKExtra,
  value: JsonValue | undefined,
): ProviderOptions | undefined {
  return withProviderOption(options, CTXGUARD_PROVIDER, extra, value);
}

/** The kept value and the options without it. */
export function takeExtra(
  options: ProviderOptions | undefined,
  extra: AISDKExtra,
): { value: JsonValue | undefined; rest: ProviderOptions | undefined } {
  const value = providerOption(options, CTXGUARD_PROVIDER, extra);
  if (value === undefined) return { value, rest: options };
  return { value, rest: withoutProviderOption(options, CTXGUARD_PROVIDER, extra) };
}

/** A kept file name, if it is a string. */
export function takeFilename(options: ProviderOptions | undefined): {
  filename: string | undefined;
  rest: ProviderOptions | undefined;
} {
  const { value, rest } = takeExtra(options, 'filename');
  return { filename: typeof value === 'string' ? value : undefined, rest };
}

/**
 * How a core tool result's `output` travels in the AI SDK: a string is `text` unless it came from a
 * `json` output whose value was a string. Also gives the part's options without the output marks.
 */
export function toolOutputKind(part: ToolResultPart): {
  kind: 'text' | 'json';
  rest: ProviderOptions | undefined;
} {
  const jsonString = providerOption(part.providerOptions, CTXGUARD_PROVIDER, 'jsonOutput') === true;
  const kind = typeof part.output === 'string' && !jsonString ? 'text' : 'json';
  return { kind, rest: withoutOutputMarks(part.providerOptions) };
}

/** `options` without the marks {@link withOutputMarks} sets: they are for the way back, not the provider. */
export function withoutOutputMarks(options: ProviderOptions | undefined): ProviderOptions | undefined {
  return takeExtra(takeExtra(options, 'jsonOutput').rest, OWN_OUTPUT_MARK).rest;
}

/** A tool output's own provider options kept on its core part, if they are well-formed. */
export function takeOutputProviderOptions(options: ProviderOptions | undefined): {
  outputOptions: ProviderOptions | undefined;
  rest: ProviderOptions | undefined;
} {
  const { value, rest } = takeExtra(options, 'outputProviderOptions');
  const parsed = value === undefined ? undefined : providerOptionsSchema.safeParse(value);
  return { outputOptions: parsed?.success ? parsed.data : undefined, rest };
}

/**
 * `options` with the marks a `json` / `error-json` output needs to come back as it was: its value is
 * a string (`jsonOutput`: JSON, not text), or has the shape of an AI SDK output (the tool's own
 * value, which `prepare` would otherwise take for an output given without `fromAISDK`).
 */
export function withOutputMarks(
  output: { type: string; value?: unknown },
  options: ProviderOptions | undefined,
): ProviderOptions | undefined {
  if (output.type !== 'json' && output.type !== 'error-json') return options;
  if (typeof output.value === 'string') return withExtra(options, 'jsonOutput', true);
  return isAISDKOutput(output.value) ? withExtra(options, OWN_OUTPUT_MARK, true) : options;
}

/**
 * A core reasoning part from an AI SDK one (a `ModelMessage`'s or the provider-level prompt's):
 * Anthropic's signature and redacted data move from `providerOptions.anthropic` to their fields.
 */
export function reasoningFromAISDK(part: {
  text: string;
  providerOptions?: ProviderOptions | undefined;
}): ReasoningPart {
  const out: ReasoningPart = { type: 'reasoning', text: part.text };
  let options = part.providerOptions;
  const signature = providerOption(options, 'anthropic', 'signature');
  if (typeof signature === 'string') {
    out.signature = signature;
    options = withoutProviderOption(options, 'anthropic', 'signature');
  }
  const redacted = providerOption(options, 'anthropic', 'redactedData');
  if (typeof redacted === 'string') {
    out.redactedData = redacted;
    options = withoutProviderOption(options, 'anthropic', 'redactedData');
  }
  return withProviderOptions(out, options);
}

/** The AI SDK form of a core reasoning part: its signature and redacted data go back to `providerOptions.anthropic`. */
export function reasoningToAISDK(part: ReasoningPart): {
  type: 'reasoning';
  text: string;
  providerOptions?: ProviderOptions;
} {
  let options = withProviderOption(part.providerOptions, 'anthropic', 'signature', part.signature);
  options = withProviderOption(options, 'anthropic', 'redactedData', part.redactedData);
  const out = { type: 'reasoning' as const, text: part.text };
  return options !== undefined && Object.keys(options).length > 0
    ? { ...out, providerOptions: options }
    : out;
}
