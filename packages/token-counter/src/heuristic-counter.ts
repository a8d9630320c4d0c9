import {
  type Calibration,
  type CalibrationStore,
  CONTENT_CLASSES,
  type ContentClass,
  calibrationSchema,
  contentClassSchema,
  isCalibrationStore,
  MemoryCalibrationStore,
  segmentContent,
} from '@ctxguard/calibration';
import {
  type HookBus,
  type Message,
  messageSchema,
  parseInput,
  parseOptions,
  type WarningEvent,
} from '@ctxguard/core';
import { isHookBus, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { addedSystemMessage } from './conversation.js';
import { DERIVED_CHARS_PER_TOKEN, DERIVED_COST_TABLES } from './heuristic-tables.js';
import { conversationOverhead, messageTokens, toolDefinitionsTokens } from './message-cost.js';
import { scanPieces } from './piece-scanner.js';
import { type ProviderMultiplier, providerMultiplier } from './provider-multipliers.js';
import {
  type CountContext,
  checkMeasureOptions,
  countContextSchema,
  type LearnInput,
  type MeasureOptions,
  type TokenCount,
  type TokenCounter,
} from './token-counter.js';

const CLASS_INDEX: Readonly<Record<ContentClass, number>> = { prose: 0, code: 1, json: 2, cjk: 3, markup: 4 };
const CLASS_COUNT = CONTENT_CLASSES.length;
const zeros = (): number[] => new Array<number>(CLASS_COUNT).fill(0);

const positiveFinite = lazySchema(() =>
  z
    .number()
    .refine(Number.isFinite, 'must be a finite number')
    .refine((n) => n > 0, 'must be positive'),
);

/** Options of {@link HeuristicCounter}. */
export const heuristicCounterOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Where learned corrections live; default an in-memory store (learning lasts for the process). */
    calibrationStore: z
      .custom<CalibrationStore>(
        isCalibrationStore,
        'must be a CalibrationStore (get, update, list and delete)',
      )
      .optional(),
    /** Prior multipliers per provider (a number, or one per content class), over the built-in table. */
    providerMultipliers: z
      .record(
        z.string().min(1),
        z.union([positiveFinite, z.partialRecord(contentClassSchema, positiveFinite)]),
      )
      .optional(),
    /** Where warnings go (`onWarning`), e.g. a failing calibration store. */
    hooks: z.custom<HookBus>(isHookBus, 'must be a HookBus (on, emit and listenerCount)').optional(),
    /** Called with every warning, in addition to `hooks`. */
    onWarning: z
      .custom<(warning: WarningEvent) => void>((v) => typeof v === 'function', 'must be a function')
      .optional(),
    /**
     * How `learn()` spreads a request's correction over its content classes: 1 gives every class
     * the same correction, 0 gives each class a part proportional to its share of the request
     * (which can separate the classes over many requests). Default 1.
     */
    apportion: z.number().min(0).max(1).default(1),
    /** Classes below this share of a request's estimated tokens are not updated by `learn()`. Default 0.03. */
    minLearnShare: z.number().min(0).max(1).default(0.03),
  }),
);

/** Options of {@link HeuristicCounter}. */
export type HeuristicCounterOptions = z.input<typeof heuristicCounterOptionsSchema>;

/** What the counter currently applies for one provider/model and content class. */
export interface HeuristicCalibrationState {
  contentClass: ContentClass;
  /** Factor over the o200k-derived base estimate (prior blended with calibration). */
  factor: number;
  /** Prior multiplier of the provider. */
  prior: number;
  /** Confidence of the learned value (0 when nothing was learned). */
  confidence: number;
  /** Learned characters per token, in the o200k reference frame, when any. */
  learnedCharsPerToken: number | undefined;
}

/**
 * A message's heuristic estimate split in two: `fixed`, the tokens calibration does not weigh
 * (framing, media), and `tokens`, the uncalibrated tokens of its text per content class (prose,
 * code, json, cjk, markup). `chars`: the characters of text read (set by `messageParts`).
 */
export interface MessageParts {
  readonly fixed: number;
  readonly tokens: Float64Array;
  readonly chars?: number;
}

/**
 * What {@link HeuristicCounter.learnFromParts} learns from: a provider-reported count and the
 * request's messages (system prompt included) as `messageParts` splits them, summed, so a caller
 * that keeps every message's parts learns without the messages being read again.
 */
export interface PartsLearnInput {
  provider: string;
  model: string;
  /** Input tokens the provider reported for the whole request. */
  actualTokens: number;
  /** The sums of `fixed`, of `tokens` per class, and of `chars` over the request's messages. */
  parts: { fixed: number; tokens: ArrayLike<number>; chars: number };
  /** The request's tool definitions (read here: they are not in the parts). */
  tools?: readonly unknown[];
}

/** The estimate `parts` make under the calibration `weights` (one per content class). */
export function weighParts(parts: MessageParts, weights: Readonly<Float64Array>): number {
  return weighTotals(parts.fixed, parts.tokens, weights);
}

function weighTotals(fixed: number, tokens: Float64Array, weights: Readonly<Float64Array>): number {
  let total = fixed;
  for (let i = 0; i < CLASS_COUNT; i++) total += (weights[i] as number) * (tokens[i] as number);
  return Math.round(total);
}

/** Characters and base tokens (o200k frame, before factors) per content class. */
export interface ClassTally {
  chars: number[];
  tokens: number[];
}

interface ModelEntry {
  provider: string;
  model: string;
  factors: Float64Array;
  learned: (Calibration | undefined)[];
  loading: Promise<void> | undefined;
  /** The counter-wide revision at this model's last calibration change (unique across models). */
  revision: number;
  /** `factors` when `revision` was last bumped. */
  factorsAtRevision: Float64Array;
}

const MAX_ENTRIES = 2048;

const learnInputSchema = lazySchema(() =>
  z
    .object({
      provider: z.string().min(1, 'must be a non-empty string'),
      model: z.string().min(1, 'must be a non-empty string'),
      actualTokens: z
        .number()
        .refine(Number.isFinite, 'must be a finite number')
        .refine((n) => n >= 0, 'must not be negative'),
      messages: z.array(messageSchema).optional(),
      system: z.string().optional(),
      tools: z.array(z.unknown()).optional(),
      charsByClass: z
        .partialRecord(
          contentClassSchema,
          z
            .number()
            .refine(Number.isFinite, 'must be a finite number')
            .refine((n) => n >= 0, 'must not be negative'),
        )
        .optional(),
    })
    .refine((v) => v.messages !== undefined || v.system !== undefined || v.charsByClass !== undefined, {
      message: 'give messages, system or charsByClass',
      path: ['messages'],
    }),
);

const nonNegativeFinite = lazySchema(() =>
  z
    .number()
    .refine(Number.isFinite, 'must be a finite number')
    .refine((n) => n >= 0, 'must not be negative'),
);

const partsLearnInputSchema = lazySchema(() =>
  z.object({
    provider: z.string().min(1, 'must be a non-empty string'),
    model: z.string().min(1, 'must be a non-empty string'),
    actualTokens: nonNegativeFinite,
    parts: z.object({
      fixed: nonNegativeFinite,
      tokens: z
        .custom<ArrayLike<number>>(
          (v) =>
            (Array.isArray(v) || v instanceof Float64Array) &&
            v.length === CLASS_COUNT &&
            Array.prototype.every.call(
              v,
              (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0,
            ),
          `must be ${CLASS_COUNT} finite non-negative numbers (one per content class)`,
        )
        .transform((v) => Array.from(v)),
      chars: nonNegativeFinite,
    }),
    tools: z.array(z.unknown()).optional(),
  }),
);

/** The calibrated tokens of base `tokens` per class under `factors`. */
function weighted(tokens: readonly number[], factors: Float64Array): number {
  let total = 0;
  for (let i = 0; i < CLASS_COUNT; i++) total += (factors[i] as number) * (tokens[i] as number);
  return total;
}

function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  try {
    return typeof value === 'object' ? (JSON.stringify(value) ?? '') : String(value);
  } catch {
    return '';
  }
}

function safeName(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Fast token estimates without a tokenizer. Text is split into runs of prose, code, JSON and
 * CJK lines; each run is cut into the pieces a BPE pre-tokenizer would see and priced from
 * tables derived from real text against o200k_base (CJK per character). A per-provider prior
 * multiplier adjusts for other tokenizers until `learn()` has seen enough provider-reported
 * counts: the learned value takes over as its confidence grows.
 */
export class HeuristicCounter implements TokenCounter {
  readonly specificationVersion = 'v1' as const;
  readonly #store: CalibrationStore;
  readonly #multipliers: Readonly<Record<string, ProviderMultiplier>>;
  readonly #hooks: HookBus | undefined;
  readonly #onWarning: ((warning: WarningEvent) => void) | undefined;
  readonly #apportion: number;
  readonly #minLearnShare: number;
  readonly #tables: Float64Array[];
  readonly #derived: Float64Array;
  readonly #entries = new Map<string, ModelEntry>();
  #revision = 0;

  constructor(options: HeuristicCounterOptions = {}) {
    const parsed = parseOptions(heuristicCounterOptionsSchema, options, 'HeuristicCounter options');
    this.#store = parsed.calibrationStore ?? new MemoryCalibrationStore();
    const multipliers: Record<string, ProviderMultiplier> = {};
    for (const [provider, value] of Object.entries(parsed.providerMultipliers ?? {}))
      multipliers[provider.toLowerCase()] = value;
    this.#multipliers = multipliers;
    this.#hooks = parsed.hooks;
    this.#onWarning = parsed.onWarning;
    this.#apportion = parsed.apportion;
    this.#minLearnShare = parsed.minLearnShare;
    this.#tables = CONTENT_CLASSES.map((c) => Float64Array.from(DERIVED_COST_TABLES[c]));
    this.#derived = Float64Array.from(CONTENT_CLASSES.map((c) => DERIVED_CHARS_PER_TOKEN[c]));
  }

  /** Bumped whenever learned calibrations change what an estimate returns (memos key on it). */
  get revision(): number {
    return this.#revision;
  }

  /** Bumped only when the calibrations of `ctx`'s model change: learning about one model keeps the others' memos. */
  revisionFor(ctx: CountContext): number {
    return this.#entry(ctx).revision;
  }

  /** Estimated tokens of a text for the model (sync, never throws). */
  estimate(text: string, ctx: CountContext): number {
    try {
      const s = toText(text);
      if (s.length === 0) return 0;
      const factors = this.#entry(ctx).factors;
      return Math.max(1, Math.round(this.#weighted(s, factors)));
    } catch {
      return Math.ceil(toText(text).length / 4);
    }
  }

  /** Estimated tokens of a message, framing, images, files and tool calls included (sync, never throws). */
  estimateMessage(message: Message, ctx: CountContext): number {
    try {
      const entry = this.#entry(ctx);
      // Summed into one scratch array (no parts object per message); the same sums messageParts gives.
      const sums = this.#sums;
      sums.fill(0);
      this.#into = sums;
      const fixed = messageTokens(message, {
        provider: entry.provider,
        model: entry.model,
        countText: this.#countInto,
      });
      return weighTotals(fixed, sums, entry.factors);
    } catch {
      return Math.ceil(toText(message).length / 4);
    }
  }

  /**
   * A message's estimate before calibration: `estimateMessage` is `weighParts(parts, weightsFor(ctx))`,
   * so a caller that keeps them can follow a calibration that moved without reading the text again.
   * `undefined` when the message cannot be read.
   */
  messageParts(message: Message, ctx: CountContext): MessageParts | undefined {
    try {
      return this.#messageParts(message, this.#entry(ctx));
    } catch {
      return undefined;
    }
  }

  /** The current calibration of `ctx`'s model, per content class (read-only; changes as it learns). */
  weightsFor(ctx: CountContext): Readonly<Float64Array> {
    return this.#entry(ctx).factors;
  }

  #messageParts(message: Message, entry: ModelEntry): MessageParts {
    const tokens = new Float64Array(CLASS_COUNT);
    this.#into = tokens;
    this.#chars = 0;
    const fixed = messageTokens(message, {
      provider: entry.provider,
      model: entry.model,
      countText: this.#countInto,
    });
    return { fixed, tokens, chars: this.#chars };
  }

  /** Where `#countInto` adds uncalibrated tokens per class, and the text being read. */
  #into: Float64Array = new Float64Array(CLASS_COUNT);
  #text = '';
  /** Characters read into `#into` (what `messageParts` reports). */
  #chars = 0;
  readonly #sums = new Float64Array(CLASS_COUNT);
  /** A text counter for `messageTokens`: adds the text's tokens per class to `#into`, counts 0 (made once, not per message). */
  readonly #countInto = (t: string): number => {
    const text = toText(t);
    if (text.length === 0) return 0;
    this.#text = text;
    segmentContent(text, this.#onRun);
    return 0;
  };
  readonly #onRun = (cls: ContentClass, start: number, end: number): void => {
    const i = CLASS_INDEX[cls];
    const into = this.#into;
    into[i] = (into[i] as number) + scanPieces(this.#text, start, end, this.#tables[i] as Float64Array);
    this.#chars += end - start;
  };

  /** The estimate, after loading stored calibrations for the model; always `accuracy: 'estimate'`. */
  async measure(text: string, ctx: CountContext, options: MeasureOptions = {}): Promise<TokenCount> {
    checkMeasureOptions(options);
    parseInput(z.string(), text, 'text');
    parseInput(countContextSchema, ctx, 'ctx');
    await this.warm(ctx);
    return { tokens: this.estimate(text, ctx), accuracy: 'estimate' };
  }

  /** Like {@link measure} for one message. */
  async measureMessage(
    message: Message,
    ctx: CountContext,
    options: MeasureOptions = {},
  ): Promise<TokenCount> {
    checkMeasureOptions(options);
    parseInput(messageSchema, message, 'message');
    parseInput(countContextSchema, ctx, 'ctx');
    await this.warm(ctx);
    return { tokens: this.estimateMessage(message, ctx), accuracy: 'estimate' };
  }

  /** Loads what the calibration store knows about the model, so the next estimates use it. */
  async warm(ctx: CountContext): Promise<void> {
    await this.#entry(ctx).loading;
  }

  /**
   * Learns from one provider-reported count of a whole request: the difference between the
   * reported tokens and the estimate (framing and media excluded) is spread over the request's
   * content classes by their share, and each class's calibration is updated.
   */
  async learn(input: LearnInput): Promise<void> {
    const parsed = parseInput(learnInputSchema, input, 'learn input');
    const entry = this.#entry(parsed);
    await entry.loading;
    const factors = entry.factors;
    const tally: ClassTally = { chars: zeros(), tokens: zeros() };
    let fixed = 0;
    if (parsed.messages !== undefined || parsed.system !== undefined) {
      const countText = (t: string): number => this.#tallyWeighted(toText(t), factors, tally);
      let total = conversationOverhead(parsed.provider);
      const system = addedSystemMessage(parsed.messages ?? [], parsed.system);
      if (system)
        total += messageTokens(system, { provider: parsed.provider, model: parsed.model, countText });
      for (const message of parsed.messages ?? []) {
        total += messageTokens(message, { provider: parsed.provider, model: parsed.model, countText });
      }
      if (parsed.tools && parsed.tools.length > 0)
        total += toolDefinitionsTokens(parsed.tools, countText, { model: parsed.model });
      fixed = total - weighted(tally.tokens, factors);
    } else {
      for (const cls of CONTENT_CLASSES) {
        const chars = parsed.charsByClass?.[cls] ?? 0;
        const i = CLASS_INDEX[cls];
        tally.chars[i] = chars;
        tally.tokens[i] = chars / (this.#derived[i] as number);
      }
    }
    await this.#learnFromTally(entry, parsed.actualTokens, tally, fixed);
  }

  /**
   * {@link learn} from the request's messages as {@link messageParts} split them, summed (a caller
   * that keeps each message's parts, like the measurer, learns without reading the messages again).
   * Learns the same as `learn` with those messages, except that a content class counts as read when
   * it has tokens (the parts hold no characters per class).
   */
  async learnFromParts(input: PartsLearnInput): Promise<void> {
    const parsed = parseInput(partsLearnInputSchema, input, 'learnFromParts input');
    const entry = this.#entry(parsed);
    await entry.loading;
    const factors = entry.factors;
    const tally: ClassTally = { chars: zeros(), tokens: parsed.parts.tokens };
    let fixed = conversationOverhead(parsed.provider) + parsed.parts.fixed;
    let chars = parsed.parts.chars;
    if (parsed.tools && parsed.tools.length > 0) {
      const tools: ClassTally = { chars: zeros(), tokens: zeros() };
      const countText = (t: string): number => this.#tallyWeighted(toText(t), factors, tools);
      fixed +=
        toolDefinitionsTokens(parsed.tools, countText, { model: parsed.model }) -
        weighted(tools.tokens, factors);
      for (let i = 0; i < CLASS_COUNT; i++)
        tally.tokens[i] = (tally.tokens[i] as number) + (tools.tokens[i] as number);
      chars += tools.chars.reduce((a, b) => a + b, 0);
    }
    // Spread the characters over the classes read by their tokens: only their total is learned from.
    const tokens = tally.tokens.reduce((a, b) => a + b, 0);
    for (let i = 0; i < CLASS_COUNT; i++)
      tally.chars[i] = tokens > 0 ? (chars * (tally.tokens[i] as number)) / tokens : 0;
    await this.#learnFromTally(entry, parsed.actualTokens, tally, fixed);
  }

  /** Updates the calibrations of `entry`'s model from a request's class tally and its fixed tokens. */
  async #learnFromTally(
    entry: ModelEntry,
    actualTokens: number,
    tally: ClassTally,
    fixed: number,
  ): Promise<void> {
    const { provider, model, factors } = entry;
    const predicted = tally.tokens.map((t, i) => t * (factors[i] as number));
    const p = predicted.reduce((a, b) => a + b, 0);
    const learnable = actualTokens - fixed;
    if (!(p > 0)) {
      this.#warn('calibration_no_text', 'learn(): the request has no text to learn from', {
        provider,
        model,
      });
      return;
    }
    const ratio = learnable / p;
    if (!(ratio >= 0.25 && ratio <= 4)) {
      this.#warn(
        'calibration_outlier',
        `learn(): reported ${actualTokens} tokens against an estimate of ${Math.round(p + fixed)}; ignored as an outlier`,
        { provider, model, ratio },
      );
      return;
    }
    const shares = predicted.map((t) => t / p);
    const sumSquares = shares.reduce((a, s) => a + s * s, 0);
    const updates: Promise<Calibration>[] = [];
    for (const cls of CONTENT_CLASSES) {
      const i = CLASS_INDEX[cls];
      const share = shares[i] as number;
      if (share < this.#minLearnShare || !((tally.chars[i] as number) > 0)) continue;
      const weight = this.#apportion + (1 - this.#apportion) * (share / sumSquares);
      const observed = Math.min(5, Math.max(0.2, (factors[i] as number) * (1 + (ratio - 1) * weight)));
      updates.push(
        this.#store.update({
          provider,
          model,
          contentClass: cls,
          charsPerToken: (this.#derived[i] as number) / observed,
        }),
      );
    }
    const totalChars = tally.chars.reduce((a, b) => a + b, 0);
    if (totalChars > 0 && learnable > 0) {
      updates.push(
        this.#store.update({ provider, model, charsPerToken: Math.min(1000, totalChars / learnable) }),
      );
    }
    const results = await Promise.all(updates);
    for (const calibration of results) this.#apply(entry, calibration);
  }

  /** What is applied now for one model, per content class (prior, learned value, confidence, factor). */
  calibrationState(ctx: CountContext): HeuristicCalibrationState[] {
    const entry = this.#entry(ctx);
    return CONTENT_CLASSES.map((cls) => {
      const i = CLASS_INDEX[cls];
      const learned = entry.learned[i];
      return {
        contentClass: cls,
        factor: entry.factors[i] as number,
        prior: providerMultiplier(entry.provider, cls, this.#multipliers),
        confidence: learned?.confidence ?? 0,
        learnedCharsPerToken: learned?.charsPerToken,
      };
    });
  }

  /** Characters and base tokens per content class of a text (o200k frame, no factors). */
  tally(text: string): ClassTally {
    const tally: ClassTally = { chars: zeros(), tokens: zeros() };
    this.#tallyWeighted(toText(text), new Float64Array(CLASS_COUNT).fill(1), tally);
    return tally;
  }

  /** Forgets the in-memory view of calibrations (the store keeps them). */
  dispose(): void {
    this.#entries.clear();
  }

  #weighted(text: string, factors: Float64Array): number {
    if (text.length === 0) return 0;
    let total = 0;
    const tables = this.#tables;
    segmentContent(text, (cls, start, end) => {
      const i = CLASS_INDEX[cls];
      total += (factors[i] as number) * scanPieces(text, start, end, tables[i] as Float64Array);
    });
    return total;
  }

  #tallyWeighted(text: string, factors: Float64Array, tally: ClassTally): number {
    if (text.length === 0) return 0;
    let total = 0;
    const tables = this.#tables;
    segmentContent(text, (cls, start, end) => {
      const i = CLASS_INDEX[cls];
      const base = scanPieces(text, start, end, tables[i] as Float64Array);
      tally.chars[i] = (tally.chars[i] as number) + (end - start);
      tally.tokens[i] = (tally.tokens[i] as number) + base;
      total += (factors[i] as number) * base;
    });
    return total;
  }

  #entry(ctx: Partial<CountContext> | undefined): ModelEntry {
    const provider = safeName(ctx?.provider);
    const model = safeName(ctx?.model);
    const key = `${provider}\u0000${model}`;
    let entry = this.#entries.get(key);
    if (entry) return entry;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    entry = {
      provider,
      model,
      factors: new Float64Array(CLASS_COUNT),
      learned: new Array<Calibration | undefined>(CLASS_COUNT).fill(undefined),
      loading: undefined,
      revision: this.#revision,
      factorsAtRevision: new Float64Array(CLASS_COUNT),
    };
    this.#recompute(entry);
    this.#entries.set(key, entry);
    if (provider.length > 0 && model.length > 0) entry.loading = this.#load(entry);
    return entry;
  }

  async #load(entry: ModelEntry): Promise<void> {
    try {
      const found = await Promise.all(
        CONTENT_CLASSES.map((contentClass) =>
          this.#store.get({ provider: entry.provider, model: entry.model, contentClass }),
        ),
      );
      for (const calibration of found) if (calibration) this.#apply(entry, calibration);
    } catch (error) {
      this.#warn(
        'calibration_load_failed',
        `Could not load calibrations of ${entry.provider}/${entry.model}; using priors`,
        {
          provider: entry.provider,
          model: entry.model,
        },
        error,
      );
    }
  }

  #apply(entry: ModelEntry, calibration: Calibration): void {
    if (calibration.contentClass === undefined || !this.#usable(entry, calibration)) return;
    const i = CLASS_INDEX[calibration.contentClass];
    const current = entry.learned[i];
    if (current && current.samples > calibration.samples) return;
    entry.learned[i] = calibration;
    if (!this.#recompute(entry)) return;
    this.#revision++;
    entry.revision = this.#revision;
  }

  /** Whether the store gave a calibration that is one (a custom store may not); warns when not. */
  #usable(entry: ModelEntry, calibration: unknown): boolean {
    const checked = calibrationSchema.safeParse(calibration);
    if (checked.success) return true;
    const issue = checked.error.issues[0];
    this.#warn(
      'calibration_invalid',
      `The calibration store gave an unusable calibration of ${entry.provider}/${entry.model} (${issue?.path.join('.') || 'value'}: ${issue?.message}); it is left out`,
      { provider: entry.provider, model: entry.model },
    );
    return false;
  }

  /**
   * Factor per class = prior blended with the learned value by its confidence. The prior of a
   * class that has learned little is itself pulled towards the model's correction learned on
   * the other classes, so a provider prior that proved wrong does not linger in rare classes.
   */
  #recompute(entry: ModelEntry): boolean {
    let weighted = 0;
    let weights = 0;
    let strongest = 0;
    for (let i = 0; i < CLASS_COUNT; i++) {
      const learned = entry.learned[i];
      if (!learned) continue;
      weighted += learned.confidence * ((this.#derived[i] as number) / learned.charsPerToken);
      weights += learned.confidence;
      strongest = Math.max(strongest, learned.confidence);
    }
    const modelFactor = weights > 0 ? weighted / weights : 1;
    const next = new Float64Array(CLASS_COUNT);
    for (const cls of CONTENT_CLASSES) {
      const i = CLASS_INDEX[cls];
      const derived = this.#derived[i] as number;
      const provider = providerMultiplier(entry.provider, cls, this.#multipliers);
      const prior = (1 - strongest) * provider + strongest * modelFactor;
      const priorCpt = derived / prior;
      const learned = entry.learned[i];
      const w = learned ? learned.confidence : 0;
      const cpt = learned ? (1 - w) * priorCpt + w * learned.charsPerToken : priorCpt;
      next[i] = derived / cpt;
    }
    entry.factors.set(next);
    return movedSince(entry.factorsAtRevision, next);
  }

  #warn(code: string, message: string, data: Record<string, unknown>, cause?: unknown): void {
    const warning: WarningEvent = {
      code,
      message,
      source: 'HeuristicCounter',
      data,
      ...(cause !== undefined ? { cause } : {}),
    };
    try {
      this.#onWarning?.(warning);
    } catch {
      // A throwing warning listener must not break counting.
    }
    if (this.#hooks) void this.#hooks.emit('onWarning', warning).catch(() => undefined);
  }
}

/**
 * Relative change of a class factor below which a model's revision is not bumped: a calibration
 * that has settled moves by less on each sample, and bumping on every nudge would make every
 * per-message memo of the model start over after each completion. Counts memoised under the
 * previous revision are then at most this far from a fresh count.
 */
const FACTOR_TOLERANCE = 0.01;

/** Whether any factor of `next` moved by more than the tolerance from `before` (copied into `before` when so). */
function movedSince(before: Float64Array, next: Float64Array): boolean {
  let moved = false;
  for (let i = 0; i < next.length && !moved; i++) {
    const was = before[i] as number;
    moved = was === 0 || Math.abs((next[i] as number) - was) > FACTOR_TOLERANCE * Math.abs(was);
  }
  if (moved) before.set(next);
  return moved;
}
