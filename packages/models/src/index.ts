export { BUILTIN_MODELS } from './catalog-data.js';
export type { ModelCatalogOptions } from './model-catalog.js';
export {
  createModelCatalog,
  getAvailableInputTokens,
  getContextWindow,
  ModelCatalog,
  modelCatalogOptionsSchema,
  PROVIDER_DEFAULT_MODEL,
} from './model-catalog.js';
export type {
  ModelInfo,
  ModelInfoInput,
  ModelMatch,
  ResolvedModel,
  Tokenizer,
  TokenizerStrategy,
} from './model-info.js';
export { modelInfoSchema, tokenizerSchema } from './model-info.js';
export {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_OUTPUT_RESERVE_RATIO,
  getOutputReserve,
  MAX_DEFAULT_OUTPUT_RESERVE,
} from './output-reserve.js';
export { catalogProvider } from './provider-aliases.js';
