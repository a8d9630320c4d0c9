// Public API of @ctxguard/strategies: explicit named re-exports, one block per concept file.

export type { LayeredLevel, LayeredStrategyOptions } from './layered-strategy.js';
export { LayeredStrategy, layeredLevels, layeredStrategyOptionsSchema } from './layered-strategy.js';
export type { TruncateStrategyOptions } from './truncate-strategy.js';
export { TruncateStrategy, truncateStrategyOptionsSchema } from './truncate-strategy.js';
