import { parseOptions } from '@ctxguard/core';
import { getAvailableInputTokens, ModelCatalog } from '@ctxguard/models';
import { CHARS_PER_TOKEN, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { tokenCounterSchema } from '../pipeline/stage-options.js';
import { truncateToTokenBudget } from '../rewrites/truncate-to-budget.js';
import { defaultTokenCounter } from './default-counter.js';

/** Share of the remaining context that file reads may use. */
export const FILE_READ_BUDGET_PERCENT = 0.6;
/** Files smaller than this (100 KiB) skip the size checks when they fit the budget. */
export const FILE_FAST_PATH_SIZE = 102_400;
/** Files larger than this (5 MiB) are only previewed. */
export const FILE_PREVIEW_MODE_SIZE = 5_242_880;
/** Characters of a preview. */
export const FILE_PREVIEW_CHARS = 2000;

const count = lazySchema(() => z.number().int().nonnegative());

/**
 * Tokens file reads may use: `floor((contextWindow − currentTokens − maxOutputTokens) × percent)`
 * (60% by default), and 0 when nothing remains.
 */
export function calculateFileTokenBudget(
  contextWindow: number,
  currentTokens: number,
  maxOutputTokens: number,
  percent: number = FILE_READ_BUDGET_PERCENT,
): number {
  parseOptions(
    z.object({
      contextWindow: count,
      currentTokens: count,
      maxOutputTokens: count,
      percent: z.number().min(0).max(1),
    }),
    { contextWindow, currentTokens, maxOutputTokens, percent },
    'calculateFileTokenBudget',
  );
  const remaining = contextWindow - currentTokens - maxOutputTokens;
  return remaining <= 0 ? 0 : Math.floor(remaining * percent);
}

/** How a file of a given size should be read within a token budget. */
export interface FileTruncationDecision {
  shouldTruncate: boolean;
  /** Characters to keep when truncating. */
  maxChars?: number;
  /** The file is too large to read: show a preview of `maxChars` characters. */
  previewMode?: boolean;
}

/**
 * Decides how to read a file of `fileSize` bytes within `budget` tokens: above 5 MiB a 2,000-char
 * preview; otherwise truncate to `budget × 4` characters when its estimated tokens (4 chars each)
 * exceed the budget. Small files (under 100 KiB) take the fast path only when they fit too: a
 * 90 KB file does not get through a 1,000-token budget.
 */
export function shouldTruncateFile(fileSize: number, budget: number): FileTruncationDecision {
  parseOptions(z.object({ fileSize: count, budget: count }), { fileSize, budget }, 'shouldTruncateFile');
  if (fileSize > FILE_PREVIEW_MODE_SIZE) {
    return {
      shouldTruncate: true,
      maxChars: Math.min(FILE_PREVIEW_CHARS, budget * CHARS_PER_TOKEN),
      previewMode: true,
    };
  }
  const tokens = Math.ceil(fileSize / CHARS_PER_TOKEN);
  if (tokens <= budget) return { shouldTruncate: false };
  return { shouldTruncate: true, maxChars: budget * CHARS_PER_TOKEN };
}

/** A file attached to a request, as text. */
export interface FileAttachment {
  content: string;
  path?: string | undefined;
}

/** Schema of {@link AggregateFileBudgetOptions}. */
export const aggregateFileBudgetOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Provider and model whose input budget the files share (ignored when `budgetTokens` is given). */
    provider: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    /** Output tokens reserved (default the catalog's reserve). */
    maxOutputTokens: z.number().int().nonnegative().optional(),
    /** Tokens the rest of the request already uses. */
    currentTokens: z.number().int().nonnegative().default(0),
    /** Share of what remains that files may use (default 0.6). */
    percent: z.number().min(0).max(1).default(FILE_READ_BUDGET_PERCENT),
    /** The files' token budget, instead of deriving it from the model. */
    budgetTokens: z.number().int().nonnegative().optional(),
    /** Files whose fair share is below this many tokens are dropped rather than cut to nothing (default 64). */
    minTokensPerFile: z.number().int().nonnegative().default(64),
    counter: tokenCounterSchema.optional(),
    catalog: z.custom<ModelCatalog>((v) => v instanceof ModelCatalog, 'must be a ModelCatalog').optional(),
  }),
);

/** Options of {@link enforceAggregateFileBudget}. */
export type AggregateFileBudgetOptions = z.input<typeof aggregateFileBudgetOptionsSchema>;

/** What {@link enforceAggregateFileBudget} did. */
export interface AggregateFileBudgetResult {
  /** The files that fit, some truncated, in their original order. */
  files: FileAttachment[];
  /** The token budget the files shared. */
  budgetTokens: number;
  /** Estimated tokens of the files before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** Paths (or indexes, for files without a path) of the files cut and dropped. */
  truncated: (string | number)[];
  dropped: (string | number)[];
}

/**
 * Fits all files of one request into a shared token budget, so several large attachments cannot
 * overflow the window on the first message: files within their fair share stay whole, the others
 * are cut at a sentence or word boundary to an equal share (max-min fair), and when even the
 * minimum share does not fit, the largest files are dropped.
 */
export function enforceAggregateFileBudget(
  files: readonly FileAttachment[],
  options: AggregateFileBudgetOptions,
): AggregateFileBudgetResult {
  const parsed = parseOptions(
    aggregateFileBudgetOptionsSchema,
    options,
    'enforceAggregateFileBudget options',
  );
  const list = parseOptions(
    z.array(z.object({ content: z.string(), path: z.string().optional() })),
    files,
    'enforceAggregateFileBudget files',
  );
  let budgetTokens: number;
  if (parsed.budgetTokens !== undefined) budgetTokens = parsed.budgetTokens;
  else {
    if (parsed.provider === undefined) {
      parseOptions(z.object({ provider: z.string() }), {}, 'enforceAggregateFileBudget options');
    }
    const provider = parsed.provider!;
    const input = parsed.catalog
      ? parsed.catalog.getAvailableInputTokens(provider, parsed.model, parsed.maxOutputTokens)
      : getAvailableInputTokens(provider, parsed.model, parsed.maxOutputTokens);
    budgetTokens = calculateFileTokenBudget(input, Math.min(parsed.currentTokens, input), 0, parsed.percent);
  }
  const counter = parsed.counter ?? defaultTokenCounter();
  const ctx = {
    provider: parsed.provider ?? 'openai',
    model: parsed.model ?? (parsed.provider ? '_default' : 'gpt-4o'),
  };
  const tokens = list.map((file) => (file.content.length === 0 ? 0 : counter.estimate(file.content, ctx)));
  const tokensBefore = tokens.reduce((a, b) => a + b, 0);
  const name = (index: number) => list[index]!.path ?? index;
  if (tokensBefore <= budgetTokens) {
    return { files: list, budgetTokens, tokensBefore, tokensAfter: tokensBefore, truncated: [], dropped: [] };
  }
  // Max-min fair shares: small files keep everything, the rest split what remains equally; when
  // that share is below the minimum, the largest file is dropped and the shares recomputed.
  const dropped = new Set<number>();
  let active = tokens.map((t, index) => ({ t, index })).sort((a, b) => a.t - b.t || a.index - b.index);
  let share = Number.POSITIVE_INFINITY;
  for (;;) {
    let remaining = budgetTokens;
    share = Number.POSITIVE_INFINITY;
    for (let i = 0; i < active.length; i++) {
      const fair = Math.floor(remaining / (active.length - i));
      if (active[i]!.t > fair) {
        share = fair;
        break;
      }
      remaining -= active[i]!.t;
    }
    if (share === Number.POSITIVE_INFINITY || share >= parsed.minTokensPerFile || active.length <= 1) break;
    dropped.add(active.at(-1)!.index);
    active = active.slice(0, -1);
  }
  const out: FileAttachment[] = [];
  const truncated: (string | number)[] = [];
  let tokensAfter = 0;
  list.forEach((file, index) => {
    if (dropped.has(index)) return;
    const t = tokens[index]!;
    if (t <= share) {
      out.push(file);
      tokensAfter += t;
      return;
    }
    const cut =
      share > 0
        ? truncateToTokenBudget(file.content, share, {
            counter,
            countContext: ctx,
            ellipsis: `\n[File truncated to fit the context budget: about ${share} of ${t} tokens kept]`,
          })
        : { text: '' };
    if (cut.text.length === 0) {
      dropped.add(index);
      return;
    }
    out.push(file.path === undefined ? { content: cut.text } : { content: cut.text, path: file.path });
    tokensAfter += counter.estimate(cut.text, ctx);
    truncated.push(name(index));
  });
  return {
    files: out,
    budgetTokens,
    tokensBefore,
    tokensAfter,
    truncated,
    dropped: [...dropped].sort((a, b) => a - b).map(name),
  };
}

/** Token budgets for file reads and attachments. */
export const fileBudget = /* @__PURE__ */ Object.freeze({
  /** Tokens file reads may use: a share (60%) of what the window has left. */
  calculate: calculateFileTokenBudget,
  /** How to read a file of a given size within a budget: whole, truncated or previewed. */
  shouldTruncate: shouldTruncateFile,
  /** The attachments of one request cut or dropped so that together they fit one budget. */
  enforceAggregate: enforceAggregateFileBudget,
});
