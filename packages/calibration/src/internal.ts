/**
 * Helpers shared between ctxguard packages (the token-count scanner reads the CJK table).
 * Not public API: may change without notice in any release.
 */
export type { CjkScript } from './cjk-ranges.js';
export { cjkScriptOf, isCjkCode } from './cjk-ranges.js';
