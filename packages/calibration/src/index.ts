export type {
  Calibration,
  CalibrationKey,
  CalibrationStore,
  CalibrationUpdate,
} from './calibration-store.js';
export {
  calibrationKey,
  calibrationKeySchema,
  calibrationSchema,
  calibrationUpdateSchema,
  isCalibrationStore,
} from './calibration-store.js';
export type { CjkScript } from './cjk-ranges.js';
export { cjkScriptOf, forEachCjkLetterRange } from './cjk-ranges.js';
export type { SegmentVisitor } from './classify-content.js';
export { classifyContent, contentProfile, segmentContent } from './classify-content.js';
export type { ContentClass } from './content-class.js';
export { CONTENT_CLASSES, contentClassSchema } from './content-class.js';
export type {
  MemoryCalibrationStoreOptions,
  PersistenceCalibrationStoreOptions,
} from './persistence-calibration-store.js';
export { MemoryCalibrationStore, PersistenceCalibrationStore } from './persistence-calibration-store.js';
