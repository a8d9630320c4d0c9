import type { JSONObject, SharedV3ProviderMetadata, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/** Schema of {@link ProviderContextManagementOptions}. */
export const providerContextManagementSchema = lazySchema(() =>
  z
    .strictObject({
      /** Let the server clear old tool uses (`clear_tool_uses_20250919`) (default true). */
      clearToolUses: z.boolean().default(true),
      /** Tool uses the server keeps when it clears (default 3). */
      keepToolUses: z.number().int().nonnegative().default(3),
      /** Tools whose uses are never cleared. */
      excludeTools: z.array(z.string().min(1)).optional(),
      /** Let the server clear old thinking (`clear_thinking_20251015`) when thinking is on (default true). */
      clearThinking: z.boolean().default(true),
      /** Thinking turns the server keeps: a number, or `all` (default 1). */
      keepThinkingTurns: z
        .custom<number | 'all'>(
          (value) => value === 'all' || (Number.isInteger(value) && (value as number) > 0),
          "must be a positive integer or 'all'",
        )
        .default(1),
      /** Let the server compact the conversation (`compact_20260112`) (default false). */
      compact: z.boolean().default(false),
      /** Instructions for the server's compaction summary. */
      compactInstructions: z.string().min(1).optional(),
    })
    .superRefine((options, issues) => {
      if (!options.clearToolUses && !options.clearThinking && !options.compact)
        issues.addIssue({
          code: 'custom',
          path: [],
          message:
            'asks the server for no edit (clearToolUses, clearThinking and compact are all false), so nothing would keep requests within the window; enable one, or leave providerContextManagement out to compact here',
        });
      if (options.compactInstructions !== undefined && !options.compact)
        issues.addIssue({
          code: 'custom',
          path: ['compactInstructions'],
          message: 'is used only by the server compaction: set compact: true, or remove it',
        });
    }),
);

/** Options of the Anthropic server-side context management (`providerContextManagement`). */
export type ProviderContextManagementOptions = z.input<typeof providerContextManagementSchema>;

/** Token triggers for the server, from the guard's thresholds and the request's input budget. */
export interface ServerTriggers {
  /** Input tokens at which the server clears (the measurer's `warn` share of the input budget). */
  clearAt: number;
  /** Input tokens at which the server compacts (the measurer's `exact` share of the input budget). */
  compactAt: number;
}

function thinkingEnabled(options: SharedV3ProviderOptions | undefined): boolean {
  const thinking = options?.['anthropic']?.['thinking'];
  if (thinking === null || typeof thinking !== 'object' || Array.isArray(thinking)) return false;
  const type = (thinking as JSONObject)['type'];
  return type === 'enabled' || type === 'adaptive';
}

/** The edits to ask for, in the order the API requires (thinking first). */
export function contextManagementEdits(
  settings: z.output<typeof providerContextManagementSchema>,
  triggers: ServerTriggers,
  options: SharedV3ProviderOptions | undefined,
): JSONObject[] {
  const edits: JSONObject[] = [];
  if (settings.clearThinking && thinkingEnabled(options)) {
    edits.push({
      type: 'clear_thinking_20251015',
      keep:
        settings.keepThinkingTurns === 'all'
          ? 'all'
          : { type: 'thinking_turns', value: settings.keepThinkingTurns },
    });
  }
  if (settings.clearToolUses) {
    edits.push({
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'input_tokens', value: triggers.clearAt },
      keep: { type: 'tool_uses', value: settings.keepToolUses },
      ...(settings.excludeTools === undefined ? {} : { excludeTools: settings.excludeTools }),
    });
  }
  if (settings.compact) {
    edits.push({
      type: 'compact_20260112',
      trigger: { type: 'input_tokens', value: triggers.compactAt },
      ...(settings.compactInstructions === undefined ? {} : { instructions: settings.compactInstructions }),
    });
  }
  return edits;
}

/**
 * The call's provider options with the edits added under `anthropic.contextManagement`; edits the app
 * set itself win (an edit type it already lists is not added again).
 */
export function withContextManagement(
  options: SharedV3ProviderOptions | undefined,
  edits: readonly JSONObject[],
): SharedV3ProviderOptions | undefined {
  if (edits.length === 0) return options;
  const anthropic = options?.['anthropic'] ?? {};
  const existing = anthropic['contextManagement'];
  const own = Array.isArray((existing as JSONObject | undefined)?.['edits'])
    ? ((existing as JSONObject)['edits'] as JSONObject[])
    : [];
  const ownTypes = new Set(own.map((edit) => edit['type']));
  const merged = [...own, ...edits.filter((edit) => !ownTypes.has(edit['type']))];
  // The API takes thinking edits before every other edit, whoever listed them.
  const thinkingFirst = [...merged.filter(isThinkingEdit), ...merged.filter((edit) => !isThinkingEdit(edit))];
  return { ...options, anthropic: { ...anthropic, contextManagement: { edits: thinkingFirst } } };
}

function isThinkingEdit(edit: JSONObject): boolean {
  return typeof edit['type'] === 'string' && edit['type'].startsWith('clear_thinking_');
}

/** What the server reported it cleared or compacted for one conversation, summed over its calls. */
export interface ServerEditStats {
  /** Responses that reported at least one applied edit. */
  responsesWithEdits: number;
  clearedToolUses: number;
  clearedThinkingTurns: number;
  clearedInputTokens: number;
  /** Server compactions applied. */
  compactions: number;
}

/** Stats before any response. */
export function emptyServerEditStats(): ServerEditStats {
  return {
    responsesWithEdits: 0,
    clearedToolUses: 0,
    clearedThinkingTurns: 0,
    clearedInputTokens: 0,
    compactions: 0,
  };
}

const count = lazySchema(() => z.number().int().nonnegative().optional());
const appliedEditSchema = lazySchema(() =>
  z.looseObject({
    type: z.string(),
    clearedToolUses: count,
    clearedThinkingTurns: count,
    clearedInputTokens: count,
  }),
);
type AppliedEdit = z.output<typeof appliedEditSchema>;

/** The edits the server applied, from a response's `providerMetadata.anthropic.contextManagement`. */
export function appliedEdits(metadata: SharedV3ProviderMetadata | undefined): AppliedEdit[] {
  const management = metadata?.['anthropic']?.['contextManagement'];
  if (management === null || typeof management !== 'object' || Array.isArray(management)) return [];
  const listed = (management as JSONObject)['appliedEdits'];
  if (!Array.isArray(listed)) return [];
  // Entry by entry: one the provider reports in a shape this version does not know spoils no other.
  return listed.flatMap((entry) => {
    const parsed = appliedEditSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Adds what one response reported to the running stats (a new object). */
export function addAppliedEdits(stats: ServerEditStats, edits: readonly AppliedEdit[]): ServerEditStats {
  if (edits.length === 0) return stats;
  const next = { ...stats, responsesWithEdits: stats.responsesWithEdits + 1 };
  for (const edit of edits) {
    next.clearedToolUses += edit.clearedToolUses ?? 0;
    next.clearedThinkingTurns += edit.clearedThinkingTurns ?? 0;
    next.clearedInputTokens += edit.clearedInputTokens ?? 0;
    if (edit.type.startsWith('compact_')) next.compactions++;
  }
  return next;
}
