// Public API of @ctxguard/strategies: explicit named re-exports, one block per concept file.

export type { CacheFriendlyStrategyOptions } from './cache-friendly-strategy.js';
export { CacheFriendlyStrategy, cacheFriendlyStrategyOptionsSchema } from './cache-friendly-strategy.js';
export type { LayeredLevel, LayeredStrategyOptions } from './layered-strategy.js';
export { LayeredStrategy, layeredLevels, layeredStrategyOptionsSchema } from './layered-strategy.js';
export type { RelevanceScoreRequest, RelevanceScorer } from './relevance-scorer.js';
export { bm25Scorer, scoreByBm25 } from './relevance-scorer.js';
export type { RelevanceStrategyOptions } from './relevance-strategy.js';
export { RelevanceStrategy, relevanceStrategyOptionsSchema } from './relevance-strategy.js';
export type { TruncateStrategyOptions } from './truncate-strategy.js';
export { TruncateStrategy, truncateStrategyOptionsSchema } from './truncate-strategy.js';
