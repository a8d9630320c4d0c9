/** The facts wire format a strategy author needs, from `@ctxguard/compactor` (one implementation). */

export { factsBlock } from '@ctxguard/compactor';
export type { ExtractedFact, FactCategory, FactInjectionSite } from '@ctxguard/core';
