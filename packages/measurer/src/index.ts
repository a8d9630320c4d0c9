export type {
  ContextLimitResolver,
  ContextMeasurement,
  ContextMeasurerOptions,
  MeasureInput,
  PrefixCheck,
} from './context-measurer.js';
export {
  ContextMeasurer,
  contextMeasurerOptionsSchema,
  DEFAULT_EXACT_THRESHOLD,
  DEFAULT_EXACT_TIMEOUT_MS,
  DEFAULT_VERIFY_THRESHOLD,
  DEFAULT_WARN_THRESHOLD,
} from './context-measurer.js';
