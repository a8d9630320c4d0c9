import { summarizeRequestSchema } from '../facts/context-tools.js';
import { deduplicateFileReadsOptionsSchema } from './deduplicate-file-reads.js';
import { lightTrimMessagesOptionsSchema } from './light-trim.js';
import { microcompactToolResultsOptionsSchema } from './microcompact-tool-results.js';
import { pruneToolOutputsOptionsSchema } from './prune-tool-outputs.js';
import { slidingWindowOptionsSchema } from './sliding-window.js';

/** The zod schemas of the rewrites' options and of a summarize request, for callers that validate first. */
export const schemas = /* @__PURE__ */ Object.freeze({
  pruneToolOutputsOptions: pruneToolOutputsOptionsSchema,
  deduplicateFileReadsOptions: deduplicateFileReadsOptionsSchema,
  microcompactToolResultsOptions: microcompactToolResultsOptionsSchema,
  lightTrimMessagesOptions: lightTrimMessagesOptionsSchema,
  slidingWindowOptions: slidingWindowOptionsSchema,
  summarizeRequest: summarizeRequestSchema,
});
