import {
  type ContextTools,
  type ExtractedFact,
  isToolResultPart,
  type Message,
  parseOptions,
  type ToolResultPart,
  toolCallsOf,
} from '@ctxguard/core';
import { abortSignalSchema, isContextTools, lazySchema, partsOf, roleOf } from '@ctxguard/shared';
import { z } from 'zod';
import { runMeter, type TokenMeter } from '../budget/token-meter.js';
import { contextToolsSchema } from '../facts/context-tools.js';
import { extractFactsSafely, mergeFactLists, selectFacts } from '../facts/fact-ledger.js';
import { renderPrunedOutput } from '../facts/markers.js';
import { defaultOfflineTools } from '../facts/offline-context-tools.js';
import { isDeepFrozen } from '../messages/deep-frozen.js';
import { frozenPrefixEnd } from '../messages/frozen-prefix.js';
import { toolOutputText, withOutput, withReplacedParts } from '../messages/message-parts.js';
import { countingFields, tokenCount } from '../pipeline/stage-options.js';
import { isPlaceholderOutput } from './deduplicate-file-reads.js';

/** Options of {@link pruneToolOutputs}. */
export const pruneToolOutputsOptionsSchema = lazySchema(() =>
  z
    .object({
      /** Tokens of the newest tool outputs never pruned (default 40,000). */
      protectTokens: tokenCount.default(40_000),
      /** Prune only when at least this many tokens are saved (default 20,000). */
      minimumSavings: tokenCount.default(20_000),
      /** Tool names whose outputs are never pruned (default `['skill']`). */
      protectedTools: z.array(z.string()).default(['skill']),
      /** Stop once the list fits in this many tokens, pruning the largest outputs first (default: prune every candidate). */
      targetTokens: tokenCount.optional(),
      /** Most facts a placeholder keeps from the output it replaces (default 8). */
      maxKeptFacts: z.number().int().nonnegative().default(DEFAULT_KEPT_FACTS.count),
      /** Most characters of kept facts per placeholder (default 600). */
      maxKeptFactChars: z.number().int().nonnegative().default(DEFAULT_KEPT_FACTS.chars),
      /** Where the kept facts come from (default: the offline extractors). */
      contextTools: contextToolsSchema.optional(),
      /** Cancels the fact extraction of model-backed `contextTools`. */
      signal: abortSignalSchema.optional(),
      ...countingFields(),
    })
    .strict(),
);

/** Options accepted by {@link pruneToolOutputs}. */
export type PruneToolOutputsStageOptions = z.input<typeof pruneToolOutputsOptionsSchema>;

/** One output replaced by a placeholder. */
export interface PrunedOutput {
  messageIndex: number;
  toolCallId: string;
  toolName: string;
  originalTokens: number;
  /** Facts kept in the placeholder. */
  keptFacts: string[];
}

/** What {@link pruneToolOutputs} did. */
export interface PruneToolOutputsStageResult {
  /** True when outputs were replaced (the savings reached `minimumSavings`). */
  pruned: boolean;
  /** The list with pruned outputs (the input objects where nothing changed). */
  messages: Message[];
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  /** Each output replaced, oldest first. */
  outputs: PrunedOutput[];
  /** The original text of every pruned output, for callers that carry their facts elsewhere. */
  prunedTexts: string[];
  /** The facts of every pruned output (merged, oldest output first), kept in a placeholder or not. */
  prunedFacts: ExtractedFact[];
}

interface Candidate {
  messageIndex: number;
  partIndex: number;
  part: ToolResultPart;
  toolName: string;
  text: string;
  tokens: number;
}

/** A candidate chosen for pruning, with the facts its placeholder may keep. */
interface Chosen extends Candidate {
  facts: ExtractedFact[];
}

/** A pruned list and the outputs it replaced. */
interface Assembled {
  messages: Message[];
  /** The facts each chosen output's placeholder keeps, in the order chosen. */
  kept: (readonly string[])[];
}

/** The list with every chosen output replaced, each placeholder keeping `factChars(candidate)` of facts. */
type Assemble = (factChars: (candidate: Chosen) => number) => Assembled;

type PruneOptions = z.output<typeof pruneToolOutputsOptionsSchema>;

/** What a placeholder keeps of its output's facts by default (`maxKeptFactChars`, `maxKeptFacts`). */
const DEFAULT_KEPT_FACTS = { chars: 600, count: 8 } as const;

/** Fact characters a placeholder keeps when even full placeholders do not fit the target. */
const LEAN_FACT_CHARS = 160;

/**
 * Replaces old tool outputs with placeholders that name the tool, say how big the output was and
 * keep its short facts (an error line, a path). Walks backwards: the newest `protectTokens` of
 * outputs and `protectedTools` are kept, and nothing up to a provider compaction item is touched;
 * applies only when the savings reach `minimumSavings`.
 * Tool calls and results stay paired (only the result's output changes); never throws on odd messages.
 */
export function pruneToolOutputs(
  messages: readonly Message[],
  options: PruneToolOutputsStageOptions = {},
): Promise<PruneToolOutputsStageResult> {
  return pruneWithMeter(messages, options);
}

/** {@link pruneToolOutputs} counting with `meter` when given: a compaction's stages share theirs. */
export async function pruneWithMeter(
  messages: readonly Message[],
  options: PruneToolOutputsStageOptions = {},
  shared?: TokenMeter,
): Promise<PruneToolOutputsStageResult> {
  const opts = parseOptions(pruneToolOutputsOptionsSchema, options, 'pruneToolOutputs options');
  const meter = shared ?? runMeter(opts.counter, opts.countContext);
  const list = Array.isArray(messages) ? messages : [];
  const tokensBefore = meter.total(list);
  const unchanged = (): PruneToolOutputsStageResult => ({
    pruned: false,
    messages: list.slice(),
    tokensBefore,
    tokensAfter: tokensBefore,
    tokensSaved: 0,
    outputs: [],
    prunedTexts: [],
    prunedFacts: [],
  });

  const candidates = findCandidates(list, opts, meter);
  if (candidates.length === 0) return unchanged();
  // Toward a target, the largest outputs go first (fewest outputs touched); else every candidate, oldest first.
  if (opts.targetTokens !== undefined) candidates.sort((a, b) => b.tokens - a.tokens);
  const { chosen, saved } = await chooseOutputs(candidates, opts, meter, tokensBefore);
  if (chosen.length === 0 || saved < opts.minimumSavings) return unchanged();
  chosen.sort((a, b) => a.messageIndex - b.messageIndex || a.partIndex - b.partIndex);

  const assemble: Assemble = (factChars) => assemblePruned(list, chosen, opts.maxKeptFacts, factChars);
  let built = assemble(() => opts.maxKeptFactChars);
  if (opts.targetTokens !== undefined && meter.total(built.messages) > opts.targetTokens) {
    built = fewerFactsToFit(built, assemble, opts.targetTokens, opts.maxKeptFactChars, meter);
  } else if (opts.targetTokens !== undefined) {
    built = moreFactsInHeadroom(built, assemble, chosen, opts.targetTokens, opts.maxKeptFactChars, meter);
  }
  const out = built.messages;
  const outputs = chosen.map(
    (candidate, index): PrunedOutput => ({
      messageIndex: candidate.messageIndex,
      toolCallId: candidate.part.toolCallId,
      toolName: candidate.toolName,
      originalTokens: candidate.tokens,
      keptFacts: [...built.kept[index]!],
    }),
  );
  const prunedTexts = chosen.map((c) => c.text);
  const tokensAfter = meter.total(out);
  return {
    pruned: true,
    messages: out,
    tokensBefore,
    tokensAfter,
    tokensSaved: tokensBefore - tokensAfter,
    outputs,
    prunedTexts,
    prunedFacts: mergeFactLists(chosen.map((c) => c.facts)),
  };
}

/**
 * The outputs that may be pruned, oldest first: walking back from the newest, those past the
 * newest `protectTokens` of outputs, after the frozen prefix, not of a protected tool and not
 * already a placeholder.
 */
function findCandidates(list: readonly Message[], opts: PruneOptions, meter: TokenMeter): Candidate[] {
  const names = new Map<string, string>();
  for (const message of list)
    for (const call of toolCallsOf(message)) names.set(call.toolCallId, call.toolName);
  const protectedTools = new Set(opts.protectedTools);

  const candidates: Candidate[] = [];
  let seen = 0;
  const frozen = frozenPrefixEnd(list);
  for (let messageIndex = list.length - 1; messageIndex >= frozen; messageIndex--) {
    const message = list[messageIndex];
    if (roleOf(message) !== 'tool') continue;
    const parts = partsOf(message);
    for (let partIndex = parts.length - 1; partIndex >= 0; partIndex--) {
      const part = parts[partIndex];
      if (!isToolResultPart(part)) continue;
      const tokens = meter.toolPart(part);
      seen += tokens;
      if (seen <= opts.protectTokens) continue;
      const toolName =
        (typeof part.toolName === 'string' && part.toolName) || names.get(part.toolCallId) || 'tool';
      if (protectedTools.has(toolName)) continue;
      if (isPlaceholderOutput(part)) continue;
      const text = toolOutputText(part);
      candidates.push({ messageIndex, partIndex, part, toolName, text, tokens });
    }
  }
  candidates.reverse();
  return candidates;
}

/**
 * Extracts the facts of each candidate in turn and keeps those whose placeholder saves tokens,
 * stopping once the list would fit `targetTokens`.
 */
async function chooseOutputs(
  candidates: readonly Candidate[],
  opts: PruneOptions,
  meter: TokenMeter,
  tokensBefore: number,
): Promise<{ chosen: Chosen[]; saved: number }> {
  const tools = opts.contextTools ?? defaultOfflineTools();
  const chosen: Chosen[] = [];
  let saved = 0;
  for (const candidate of candidates) {
    if (opts.targetTokens !== undefined && tokensBefore - saved <= opts.targetTokens) break;
    const facts = await outputFacts(tools, candidate, opts.signal);
    const entry: Chosen = { ...candidate, facts };
    const placeholder = placeholderOf(entry, opts.maxKeptFactChars, opts.maxKeptFacts);
    const gain = candidate.tokens - meter.toolPart(placeholder.part);
    if (gain <= 0) continue;
    saved += gain;
    chosen.push(entry);
  }
  return { chosen, saved };
}

/**
 * Facts of deeply frozen outputs (stored originals), per tools (their origin): every compaction
 * prunes the same originals again, and asks the tools (a model, maybe) only about new ones.
 */
const factsOfOutputs = new WeakMap<ContextTools, WeakMap<ToolResultPart, ExtractedFact[]>>();

async function outputFacts(
  tools: ContextTools,
  candidate: Candidate,
  signal: AbortSignal | undefined,
): Promise<ExtractedFact[]> {
  const origin = isContextTools(tools.origin) ? tools.origin : tools;
  const frozen = isDeepFrozen(candidate.part);
  const known = frozen ? factsOfOutputs.get(origin)?.get(candidate.part) : undefined;
  if (known !== undefined) return known;
  const { facts, complete } = await extractFactsSafely(tools, candidate.text, { signal });
  // An empty answer is asked again next time: it may be a model's hiccup that a wrapper turned into [].
  if (frozen && complete && facts.length > 0) {
    let byPart = factsOfOutputs.get(origin);
    if (byPart === undefined) {
      byPart = new WeakMap();
      factsOfOutputs.set(origin, byPart);
    }
    byPart.set(candidate.part, facts);
  }
  return facts;
}

interface Placeholder {
  part: ToolResultPart;
  kept: readonly string[];
}

/**
 * Placeholders by the facts they were made from (a frozen output's facts are one list for good, see
 * {@link outputFacts}) and fact budget: a compaction tries a few budgets per output, and the next
 * compaction the same ones again.
 */
const placeholdersByFacts = new WeakMap<readonly ExtractedFact[], MadePlaceholder[]>();
/** Enough for the budgets one compaction tries per output (a bisection's few steps). */
const PLACEHOLDERS_PER_OUTPUT = 8;

/** A placeholder and what it was made for. */
interface MadePlaceholder {
  readonly factChars: number;
  readonly maxKeptFacts: number;
  readonly tokens: number;
  readonly toolName: string;
  readonly placeholder: Placeholder;
}

/** The placeholder part of a chosen output, keeping up to `factChars` of its facts. */
function placeholderOf(candidate: Chosen, factChars: number, maxKeptFacts: number): Placeholder {
  let made = placeholdersByFacts.get(candidate.facts);
  if (made === undefined) {
    made = [];
    placeholdersByFacts.set(candidate.facts, made);
  }
  const { tokens, toolName } = candidate;
  const known = made.find(
    (entry) =>
      entry.factChars === factChars &&
      entry.maxKeptFacts === maxKeptFacts &&
      entry.tokens === tokens &&
      entry.toolName === toolName,
  );
  if (known !== undefined) return known.placeholder;
  const placeholder = makePlaceholder(candidate, factChars, maxKeptFacts);
  if (made.length >= PLACEHOLDERS_PER_OUTPUT) made.shift();
  made.push({ factChars, maxKeptFacts, tokens, toolName, placeholder });
  return placeholder;
}

/**
 * The facts a placeholder keeps of its output's `facts`, most valuable first, in `factChars`
 * characters: at least `maxKeptFacts` (4 at most in a lean placeholder), one per 40 characters.
 */
export function keptFactValues(
  facts: readonly ExtractedFact[],
  { chars: factChars, count: maxKeptFacts }: { chars: number; count: number } = DEFAULT_KEPT_FACTS,
): string[] {
  return selectFacts(facts, factChars)
    .slice(
      0,
      factChars <= LEAN_FACT_CHARS
        ? Math.min(maxKeptFacts, 4)
        : Math.max(maxKeptFacts, Math.floor(factChars / 40)),
    )
    .map((fact: ExtractedFact) => fact.value);
}

function makePlaceholder(candidate: Chosen, factChars: number, maxKeptFacts: number): Placeholder {
  const keptFacts = keptFactValues(candidate.facts, { chars: factChars, count: maxKeptFacts });
  const output = renderPrunedOutput({
    toolName: candidate.toolName,
    originalTokens: candidate.tokens,
    originalChars: candidate.text.length,
    keptFacts,
  });
  return { part: withOutput(candidate.part, output), kept: Object.freeze(keptFacts) };
}

/** `list` with each chosen output replaced by its placeholder (messages without one stay the same objects). */
function assemblePruned(
  list: readonly Message[],
  chosen: readonly Chosen[],
  maxKeptFacts: number,
  factChars: (candidate: Chosen) => number,
): Assembled {
  const replaced = new Map<number, Map<number, ToolResultPart>>();
  const keptFacts: (readonly string[])[] = [];
  for (const candidate of chosen) {
    const { part, kept } = placeholderOf(candidate, factChars(candidate), maxKeptFacts);
    const parts = replaced.get(candidate.messageIndex) ?? new Map<number, ToolResultPart>();
    replaced.set(candidate.messageIndex, parts);
    parts.set(candidate.partIndex, part);
    keptFacts.push(kept);
  }
  const messages = withReplacedParts(list, replaced);
  return { messages, kept: keptFacts };
}

/**
 * Over the target with every fact kept: the most facts per placeholder that still fits
 * (bisected), or only the shortest facts when nothing fits.
 */
function fewerFactsToFit(
  built: Assembled,
  assemble: Assemble,
  target: number,
  maxKeptFactChars: number,
  meter: TokenMeter,
): Assembled {
  const lean = assemble(() => Math.min(maxKeptFactChars, LEAN_FACT_CHARS));
  if (meter.total(lean.messages) > target) {
    return meter.total(lean.messages) < meter.total(built.messages) ? lean : built;
  }
  let best = lean;
  let low = LEAN_FACT_CHARS;
  let high = maxKeptFactChars;
  for (let step = 0; step < 7 && high - low > 40; step++) {
    const mid = Math.floor((low + high) / 2);
    const attempt = assemble(() => mid);
    if (meter.total(attempt.messages) <= target) {
      best = attempt;
      low = mid;
    } else high = mid;
  }
  return best;
}

/** Room left under the target keeps more of the pruned outputs' facts, shared by their size. */
function moreFactsInHeadroom(
  built: Assembled,
  assemble: Assemble,
  chosen: readonly Chosen[],
  target: number,
  maxKeptFactChars: number,
  meter: TokenMeter,
): Assembled {
  const headroom = target - meter.total(built.messages);
  const totalTokens = chosen.reduce((sum, c) => sum + c.tokens, 0);
  let extra = headroom * 3;
  for (let attempt = 0; attempt < 4 && extra > 200; attempt++) {
    const share = extra;
    const next = assemble((c) => maxKeptFactChars + Math.floor((share * c.tokens) / totalTokens));
    if (meter.total(next.messages) <= target) return next;
    extra = Math.floor(extra / 2);
  }
  return built;
}
