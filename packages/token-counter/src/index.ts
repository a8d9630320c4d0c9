export { estimateConversation, measureConversation } from './conversation.js';
export type { CountApiCounterOptions } from './count-api-counter.js';
export { CountApiCounter, CountApiError } from './count-api-counter.js';
export type { CountCache } from './count-cache.js';
export type { ExactEngine } from './exact-engine.js';
export type { ExactTokenCounterOptions } from './exact-token-counter.js';
export { ExactTokenCounter } from './exact-token-counter.js';
export type { HeuristicCounterOptions, MessageParts, PartsLearnInput } from './heuristic-counter.js';
export { HeuristicCounter, weighParts } from './heuristic-counter.js';
export type { HybridTokenCounterOptions } from './hybrid-counter.js';
export { HybridTokenCounter } from './hybrid-counter.js';
export type { MemoizedCounterOptions } from './memoized-counter.js';
export { MemoizedCounter } from './memoized-counter.js';
export {
  conversationOverhead,
  fileTokens,
  imageTokens,
  messageTokens,
  toolDefinitionsTokens,
} from './message-cost.js';
export { encodingForModel } from './model-encoding.js';
export { sha256Hex } from './text-hash.js';
export type {
  Accuracy,
  ConversationCount,
  ConversationInput,
  CountContext,
  LearnInput,
  MeasureOptions,
  TokenCount,
  TokenCounter,
} from './token-counter.js';
export { isTokenCounter, revisionOf } from './token-counter.js';
