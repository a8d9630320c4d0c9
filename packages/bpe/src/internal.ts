/**
 * Helpers shared between ctxguard packages. Not public API: anything here may change or go
 * away in any release without notice. Import from `@ctxguard/bpe` instead.
 */
export { checkEncoding, checkText, isEncoding } from './encoding.js';
export { pieceRegex, splitPieces } from './pretokenizer.js';
export type { RawRanks } from './rank-table.js';
export { loadRawRanks } from './rank-table.js';
