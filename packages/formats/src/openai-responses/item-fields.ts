import type { JsonValue, ProviderOptions } from '@ctxguard/core';
import { mergeProviderOptions, providerOption } from '../shared.js';

/** The provider key the Responses converters keep an item's other fields under. */
export const OPENAI = 'openai';

/** Marks an item that followed a reasoning item: its id goes back only beside that reasoning item. */
export const AFTER_REASONING = 'afterReasoning';

/** On a reasoning item: the id of the item that followed it, which the API requires beside it. */
export const FOLLOWED_BY = 'followedBy';

/** Fields of an item or part as the API gave them, besides those core holds. */
export type ItemFields = { [key: string]: JsonValue };

/** `options` with `fields` merged into its `openai` record. */
export function withOpenAI(options: ProviderOptions | undefined, fields: ItemFields): ProviderOptions {
  return mergeProviderOptions(options, { [OPENAI]: fields }) as ProviderOptions;
}

/** The item fields a part or message keeps under `openai[key]`, when it has them. */
export function storedFields(
  options: ProviderOptions | undefined,
  key: 'item' | 'part',
): ItemFields | undefined {
  const value = providerOption(options, OPENAI, key);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}
