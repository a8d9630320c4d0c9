import { catalogProvider, ModelCatalog } from '@ctxguard/models';

let builtins: ModelCatalog | undefined;

/** The built-in catalog, made on first use (most apps never ask it for anything). */
export function builtinCatalog(): ModelCatalog {
  builtins ??= new ModelCatalog();
  return builtins;
}

/** A provider name as the catalog spells it, or `undefined` for a blank one. */
function catalogName(provider: string): string | undefined {
  return provider.trim() === '' ? undefined : catalogProvider(provider);
}

/**
 * A model's provider and id as `catalog` (default: the built-in one) knows them. A gateway serves
 * other providers' models under ids `provider/model` (the AI Gateway's `gateway` provider with
 * `anthropic/claude-sonnet-4-5`, OpenRouter): when the catalog does not know the gateway but lists
 * that model of the provider the id names (not just the provider's default), those are used.
 */
export function catalogIds(
  provider: string,
  modelId: string,
  catalog: ModelCatalog = builtinCatalog(),
): { provider: string; model: string } {
  const own = catalogName(provider) ?? provider;
  const slash = modelId.indexOf('/');
  const known = catalog.providers();
  if (slash <= 0 || known.includes(own)) return { provider: own, model: modelId };
  const named = catalogName(modelId.slice(0, slash));
  const rest = modelId.slice(slash + 1);
  if (named === undefined || !known.includes(named) || rest.trim() === '')
    return { provider: own, model: modelId };
  const { match } = catalog.get(named, rest);
  return match === 'exact' || match === 'prefix'
    ? { provider: named, model: rest }
    : { provider: own, model: modelId };
}
