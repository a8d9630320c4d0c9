/** The facts wire format a strategy author needs, from `@ctxguard/compactor` (one implementation). */

export { FACTS_CLOSE, FACTS_OPEN, parseFactsBlock, renderFactsBlock } from '@ctxguard/compactor';
export type { ExtractedFact, FactCategory, FactInjectionSite } from '@ctxguard/core';
