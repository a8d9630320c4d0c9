export { BpeArgumentError } from './bpe-argument-error.js';
export { BpeEncoder } from './bpe-encoder.js';
export type { Encoding } from './encoding.js';
export { ENCODINGS, isEncoding } from './encoding.js';
export { countTokens, encode, loadEncoder } from './shared-encoders.js';
