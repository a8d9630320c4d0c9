// Public API of @ctxguard/strategies: explicit named re-exports, one block per concept file.

export type { CacheFriendlyStrategyOptions } from './cache-friendly-strategy.js';
export { CacheFriendlyStrategy } from './cache-friendly-strategy.js';
export type { EngineStep, EngineStrategyOptions, SessionMemorySeedFn } from './engine-strategy.js';
export { EngineStrategy, engineSteps } from './engine-strategy.js';
export type { LayeredLevel, LayeredStrategyOptions } from './layered-strategy.js';
export { LayeredStrategy, layeredLevels } from './layered-strategy.js';
export type {
  Layout,
  LayoutSection,
  LayoutStrategyOptions,
  SectionRanges,
  SectionRendering,
} from './layout-strategy.js';
export {
  INCLUDE_IN_HISTORY_KEY,
  LayoutStrategy,
  layoutSections,
  preferredLayouts,
  sectionRanges,
  sectionRenderings,
  TOOL_SUMMARY_KEY,
  TOOL_SUMMARY_PREFIX,
} from './layout-strategy.js';
export type { PipelineStage, PipelineStrategyOptions } from './pipeline-strategy.js';
export { PipelineStrategy, pipelineStages } from './pipeline-strategy.js';
export type { RecompactStrategyOptions } from './recompact-strategy.js';
export { RecompactStrategy } from './recompact-strategy.js';
export type { RelevanceScoreRequest, RelevanceScorer } from './relevance-scorer.js';
export { bm25Scorer } from './relevance-scorer.js';
export type { RelevanceStrategyOptions } from './relevance-strategy.js';
export { RelevanceStrategy } from './relevance-strategy.js';
export type { TruncateStrategyOptions } from './truncate-strategy.js';
export { TruncateStrategy } from './truncate-strategy.js';
