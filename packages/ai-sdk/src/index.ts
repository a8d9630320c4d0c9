export { HookBus } from '@ctxguard/core';
export { ContextDeclinedError } from '@ctxguard/facade';
// The catalog's provider name of a model's `provider` (`google.generative-ai` → `google-ai`): the
// models package's alias table, which the middleware names its guards by.
export { catalogProvider } from '@ctxguard/models';
export type { AISdkContextToolsOptions } from './ai-sdk-context-tools.js';
export { aiSdkContextTools } from './ai-sdk-context-tools.js';
export type { ProviderContextManagementOptions, ServerEditStats } from './anthropic-context-management.js';
export { callReportOf } from './call-report.js';
export type { ConversationIdResolver } from './conversation-id.js';
export type {
  AISdkConversationStats,
  CallReport,
  CtxguardMiddleware,
  CtxguardMiddlewareControls,
  CtxguardMiddlewareV4,
} from './ctxguard-middleware.js';
export { ctxguardMiddleware } from './ctxguard-middleware.js';
export type { CtxguardMiddlewareOptions } from './middleware-options.js';
export type { AISdk7CallOptions, AISdk7Middleware, AISdk7Model } from './middleware-v4.js';
export type {
  RecalledCompaction,
  RecallInput,
  RecallOutput,
  RecallSource,
  RecallToolCall,
  RecallToolOptions,
} from './recall-tool.js';
export { recallTool } from './recall-tool.js';
