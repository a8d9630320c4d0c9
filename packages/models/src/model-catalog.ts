import { parseInput, parseOptions } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { assertInteger, normalizeIdentifier } from './arguments.js';
import { BUILTIN_MODELS, HEURISTIC } from './catalog-data.js';
import {
  type ModelInfo,
  type ModelInfoInput,
  type ModelMatch,
  modelInfoSchema,
  type ResolvedModel,
} from './model-info.js';
import { DEFAULT_CONTEXT_WINDOW, getOutputReserve } from './output-reserve.js';
import { catalogProvider } from './provider-aliases.js';

/** Model id of a provider's fallback entry. */
export const PROVIDER_DEFAULT_MODEL = '_default';

/** A model entry as `register` accepts it: the schema plus cross-field checks. */
const catalogEntrySchema = /* @__PURE__ */ lazySchema(() =>
  modelInfoSchema.superRefine((entry, ctx) => {
    if (entry.provider.trim() === '') {
      ctx.addIssue({ code: 'custom', path: ['provider'], message: 'must not be blank' });
    }
    if (entry.model.trim() === '') {
      ctx.addIssue({ code: 'custom', path: ['model'], message: 'must not be blank' });
    }
    if (entry.maxOutputTokens !== undefined && entry.maxOutputTokens > entry.contextWindow) {
      ctx.addIssue({ code: 'custom', path: ['maxOutputTokens'], message: 'must not exceed contextWindow' });
    }
    if (entry.maxInputTokens !== undefined && entry.maxInputTokens > entry.contextWindow) {
      ctx.addIssue({ code: 'custom', path: ['maxInputTokens'], message: 'must not exceed contextWindow' });
    }
  }),
);

/** Options of {@link ModelCatalog}. */
export const modelCatalogOptionsSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    /** Entries registered after the built-ins; they override built-ins with the same provider and model. */
    models: z.array(catalogEntrySchema).optional(),
    /** Load the built-in catalog (default `true`); `false` starts empty. */
    builtins: z.boolean().optional(),
  }),
);

/** Options of {@link ModelCatalog}. */
export type ModelCatalogOptions = z.input<typeof modelCatalogOptionsSchema>;

/** Characters after which a longer model id still belongs to a shorter catalog id. */
const ID_BOUNDARIES = /* @__PURE__ */ new Set(['-', ':', '@', '/', '_']);

/** Resolved lookups kept per catalog; cleared on `register`, and when full. */
const RESOLVED_CACHE_LIMIT = 1024;

const GOOGLE_RESOURCE_NAME = /^(?:projects\/[^/]+\/locations\/[^/]+\/)?(?:publishers\/[^/]+\/)?models\//;

/** A version number written with a dot between two digits (`4.5`). */
const DOTTED_VERSION = /(\d)\.(\d)/g;

/**
 * Provider-specific spellings of the same model id, tried after the id as given. A `Map`, so
 * provider ids such as `constructor` or `__proto__` find nothing instead of `Object.prototype`.
 */
const ID_PREFIXES: ReadonlyMap<string, RegExp> = /* @__PURE__ */ new Map([
  // Cross-region inference profiles: `us.anthropic.claude-…`, `global.anthropic.claude-…`.
  ['bedrock', /^(?:us|us-gov|eu|apac|jp|au|ca|global)\./],
  // Resource names: `models/gemini-2.5-pro`, `publishers/google/models/gemini-2.5-pro`.
  ['google-ai', GOOGLE_RESOURCE_NAME],
  ['vertex', GOOGLE_RESOURCE_NAME],
]);

interface ProviderTable {
  readonly exact: Map<string, ModelInfo>;
  /** Non-default entries, longest id first; rebuilt lazily after a change. */
  byLength: ModelInfo[] | undefined;
}

function freezeEntry(entry: z.output<typeof catalogEntrySchema>): ModelInfo {
  const info: ModelInfo = {
    provider: entry.provider.trim().toLowerCase(),
    model: entry.model.trim().toLowerCase(),
    contextWindow: entry.contextWindow,
    tokenizer: Object.freeze({ ...entry.tokenizer }),
  };
  if (entry.maxOutputTokens !== undefined) info.maxOutputTokens = entry.maxOutputTokens;
  if (entry.maxInputTokens !== undefined) info.maxInputTokens = entry.maxInputTokens;
  if (entry.source !== undefined) info.source = entry.source;
  return Object.freeze(info);
}

function byModelId(a: ModelInfo, b: ModelInfo): number {
  return a.model < b.model ? -1 : a.model > b.model ? 1 : 0;
}

/**
 * Context windows, output limits and tokenizer per provider and model. Lookups are
 * case-insensitive and never fail: exact id, then longest id prefix, then the provider's
 * `_default`, then a 128k global default. A provider the catalog has no entries under is looked
 * up by its catalog name (`google` → `google-ai`, `amazon-bedrock` → `bedrock`, see `catalogProvider`).
 */
export class ModelCatalog {
  readonly #providers = new Map<string, ProviderTable>();
  /** Resolved lookups: provider id, then model id (`undefined` for no model), so no two pairs share a key. */
  readonly #resolved = new Map<string, Map<string | undefined, ResolvedModel>>();
  #resolvedCount = 0;
  /** The last lookup as asked (before normalizing): counters and measurers ask for one model per call, several times. */
  #last: { provider: unknown; model: unknown; resolved: ResolvedModel } | undefined;

  constructor(options?: ModelCatalogOptions) {
    const parsed = parseOptions(modelCatalogOptionsSchema, options, 'ModelCatalog options');
    if (parsed.builtins !== false) {
      for (const entry of BUILTIN_MODELS)
        this.#insert(freezeEntry(entry as z.output<typeof catalogEntrySchema>));
    }
    for (const entry of parsed.models ?? []) this.#insert(freezeEntry(entry));
  }

  /**
   * Resolves a model. Without `model`, or when nothing matches, the provider's `_default`
   * answers; an unknown provider gets the global default (128k, heuristic tokenizer).
   */
  get(provider: string, model?: string): ResolvedModel {
    const last = this.#last;
    if (last !== undefined && last.provider === provider && last.model === model) return last.resolved;
    const resolved = this.#lookup(provider, model);
    this.#last = { provider, model, resolved };
    return resolved;
  }

  #lookup(provider: string, model: string | undefined): ResolvedModel {
    const providerId = normalizeIdentifier(provider, 'provider');
    const modelId = model === undefined ? undefined : normalizeIdentifier(model, 'model');
    const cached = this.#resolved.get(providerId)?.get(modelId);
    if (cached !== undefined) return cached;
    const resolved = this.#resolve(this.#providerIdOf(providerId), modelId);
    this.#cacheResolved(providerId, modelId, resolved);
    return resolved;
  }

  #cacheResolved(providerId: string, modelId: string | undefined, resolved: ResolvedModel): void {
    if (this.#resolvedCount >= RESOLVED_CACHE_LIMIT) this.#clearResolved();
    let byModel = this.#resolved.get(providerId);
    if (byModel === undefined) {
      byModel = new Map();
      this.#resolved.set(providerId, byModel);
    }
    byModel.set(modelId, resolved);
    this.#resolvedCount++;
  }

  #clearResolved(): void {
    this.#resolved.clear();
    this.#resolvedCount = 0;
  }

  /**
   * The provider id entries are kept under: `providerId` itself when the catalog has entries under
   * it (a registered provider named like an alias keeps its own entries), else its catalog name.
   */
  #providerIdOf(providerId: string): string {
    if (this.#providers.has(providerId)) return providerId;
    const named = catalogProvider(providerId);
    return this.#providers.has(named) ? named : providerId;
  }

  /** True when the catalog holds an entry with exactly this provider (or alias) and model id. */
  has(provider: string, model: string): boolean {
    const providerId = this.#providerIdOf(normalizeIdentifier(provider, 'provider'));
    const modelId = normalizeIdentifier(model, 'model');
    return this.#providers.get(providerId)?.exact.has(modelId) ?? false;
  }

  /**
   * Adds or replaces entries (same provider and model id, case-insensitive). All entries are
   * validated first: one bad entry rejects the call, naming its index and field, and changes nothing.
   */
  register(models: ModelInfoInput | readonly ModelInfoInput[]): void {
    const list: unknown = Array.isArray(models) ? models : [models];
    const parsed = parseInput(z.array(catalogEntrySchema), list, 'models');
    for (const entry of parsed) this.#insert(freezeEntry(entry));
    this.#clearResolved();
    this.#last = undefined;
  }

  /** Entries of one provider (or alias), or of all providers, sorted by provider then model id. */
  list(provider?: string): ModelInfo[] {
    if (provider !== undefined) {
      const table = this.#providers.get(this.#providerIdOf(normalizeIdentifier(provider, 'provider')));
      return table === undefined ? [] : [...table.exact.values()].sort(byModelId);
    }
    return this.providers().flatMap((id) => this.list(id));
  }

  /** Provider ids that have at least one entry, sorted. */
  providers(): string[] {
    return [...this.#providers.keys()].sort();
  }

  /** Context window of the resolved model, in tokens. */
  getContextWindow(provider: string, model?: string): number {
    return this.get(provider, model).contextWindow;
  }

  /**
   * Input tokens a request may use (the input budget): window minus output reserve (see
   * `getOutputReserve`; without the request's `maxOutputTokens` it is capped at the model's), capped
   * by the model's `maxInputTokens`. Never negative: a `maxOutputTokens` at or above the window leaves 0.
   */
  getAvailableInputTokens(provider: string, model?: string, maxOutputTokens?: number): number {
    if (maxOutputTokens !== undefined) assertInteger(maxOutputTokens, 'maxOutputTokens', 0);
    const resolved = this.get(provider, model);
    const reserve = getOutputReserve(resolved.contextWindow, maxOutputTokens, resolved.maxOutputTokens);
    const available = Math.max(0, resolved.contextWindow - reserve);
    return resolved.maxInputTokens === undefined ? available : Math.min(available, resolved.maxInputTokens);
  }

  #insert(info: ModelInfo): void {
    let table = this.#providers.get(info.provider);
    if (table === undefined) {
      table = { exact: new Map(), byLength: undefined };
      this.#providers.set(info.provider, table);
    }
    table.exact.set(info.model, info);
    table.byLength = undefined;
  }

  #resolve(providerId: string, modelId: string | undefined): ResolvedModel {
    const table = this.#providers.get(providerId);
    if (table !== undefined) {
      if (modelId !== undefined && modelId !== PROVIDER_DEFAULT_MODEL) {
        const candidates = [modelId];
        const alternative = ID_PREFIXES.get(providerId);
        if (alternative?.test(modelId)) candidates.push(modelId.replace(alternative, ''));
        // Gateways spell a version with a dot (`claude-sonnet-4.5`) where the provider's id has a
        // hyphen: an exact id only (as a prefix, `gpt-4-5` would be taken for `gpt-4`).
        const hyphenated = candidates.map((id) => id.replace(DOTTED_VERSION, '$1-$2'));
        for (const candidate of [...candidates, ...hyphenated]) {
          const exact = table.exact.get(candidate);
          if (exact !== undefined) return withMatch(exact, 'exact');
        }
        for (const candidate of candidates) {
          const prefix = longestPrefix(table, candidate);
          if (prefix !== undefined) return withMatch(prefix, 'prefix');
        }
      }
      const fallback = table.exact.get(PROVIDER_DEFAULT_MODEL);
      if (fallback !== undefined) return withMatch(fallback, 'provider-default');
    }
    return Object.freeze({
      provider: providerId,
      model: PROVIDER_DEFAULT_MODEL,
      contextWindow: DEFAULT_CONTEXT_WINDOW,
      tokenizer: HEURISTIC,
      source: 'ctxguard DEFAULT_CONTEXT_WINDOW',
      match: 'global-default',
    });
  }
}

function withMatch(info: ModelInfo, match: ModelMatch): ResolvedModel {
  return Object.freeze({ ...info, match });
}

/** Longest catalog id that `modelId` starts with, followed by an id boundary (`gpt-4` never claims `gpt-4o`). */
function longestPrefix(table: ProviderTable, modelId: string): ModelInfo | undefined {
  table.byLength ??= [...table.exact.values()]
    .filter((info) => info.model !== PROVIDER_DEFAULT_MODEL)
    .sort((a, b) => b.model.length - a.model.length);
  for (const info of table.byLength) {
    const id = info.model;
    if (
      id.length < modelId.length &&
      modelId.startsWith(id) &&
      ID_BOUNDARIES.has(modelId.charAt(id.length))
    ) {
      return info;
    }
  }
  return undefined;
}

/** Creates a catalog; same as `new ModelCatalog(options)`. */
export function createModelCatalog(options?: ModelCatalogOptions): ModelCatalog {
  return new ModelCatalog(options);
}

let builtinCatalog: ModelCatalog | undefined;

/** The built-in catalog shared by the module-level helpers, created on first use. */
function sharedCatalog(): ModelCatalog {
  builtinCatalog ??= new ModelCatalog();
  return builtinCatalog;
}

/** `getAvailableInputTokens` on the built-in catalog (created on first call). */
export function getAvailableInputTokens(provider: string, model?: string, maxOutputTokens?: number): number {
  return sharedCatalog().getAvailableInputTokens(provider, model, maxOutputTokens);
}

/** `getContextWindow` on the built-in catalog (created on first call). */
export function getContextWindow(provider: string, model?: string): number {
  return sharedCatalog().getContextWindow(provider, model);
}
