import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

type Hasher = (text: string) => string;

interface NodeCrypto {
  createHash(algorithm: 'sha256'): {
    update(text: string, encoding: 'utf8'): { digest(encoding: 'hex'): string };
  };
}

/** The hasher this runtime offers, found on first use (no work at import time). */
let hasher: Hasher | undefined;

/**
 * SHA-256 (hex) of a text's UTF-8 bytes: Node's native hash where the runtime offers it
 * synchronously (`process.getBuiltinModule`, about 8× faster on a 5 KB text), else
 * `@noble/hashes` (browsers, edge runtimes). Both give the same digest.
 */
export function sha256Hex(text: string): string {
  hasher ??= nodeHasher() ?? nobleSha256Hex;
  return hasher(text);
}

/** SHA-256 (hex) of a text's UTF-8 bytes in pure JavaScript. */
export function nobleSha256Hex(text: string): string {
  return bytesToHex(sha256(new TextEncoder().encode(text)));
}

function nodeHasher(): Hasher | undefined {
  try {
    const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const crypto = runtime?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
    if (typeof crypto?.createHash !== 'function') return undefined;
    return (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
  } catch {
    return undefined;
  }
}
