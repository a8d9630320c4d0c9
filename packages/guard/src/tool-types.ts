import type { StrategyToolOptions, StrategyToolResult } from '@ctxguard/core';

export type PruneToolOutputsOptions = StrategyToolOptions<'pruneToolOutputs'>;
export type PruneToolOutputsResult = StrategyToolResult<'pruneToolOutputs'>;
export type DeduplicateFileReadsOptions = StrategyToolOptions<'deduplicateFileReads'>;
export type DeduplicateFileReadsResult = StrategyToolResult<'deduplicateFileReads'>;
export type SlideWindowOptions = StrategyToolOptions<'slideWindow'>;
export type SlideWindowResult = StrategyToolResult<'slideWindow'>;
export type MicrocompactToolResultsOptions = StrategyToolOptions<'microcompactToolResults'>;
export type MicrocompactToolResultsResult = StrategyToolResult<'microcompactToolResults'>;
export type CompactMessagesRewriteOptions = StrategyToolOptions<'compactMessages'>;
export type CompactMessagesRewriteResult = StrategyToolResult<'compactMessages'>;
export type LightTrimRewriteOptions = StrategyToolOptions<'lightTrim'>;
export type LightTrimRewriteResult = StrategyToolResult<'lightTrim'>;
export type SummarizeRangeOptions = StrategyToolOptions<'summarizeRange'>;
export type SummarizeRangeResult = StrategyToolResult<'summarizeRange'>;
