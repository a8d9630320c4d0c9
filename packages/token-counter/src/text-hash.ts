import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

type HashText = (text: string) => string;

interface NodeCrypto {
  /** One-shot hash (Node 20.12 and later): no hash object per call. */
  hash?: (algorithm: 'sha256', text: string, encoding: 'hex') => string;
  createHash(algorithm: 'sha256'): {
    update(text: string, encoding: 'utf8'): { digest(encoding: 'hex'): string };
  };
}

/**
 * Node's own SHA-256 where the runtime has it (about 8× faster than hashing in JavaScript), else
 * `@noble/hashes`. Looked up on the first hash, not at import: loading `node:crypto` is a few
 * milliseconds a cold start that never hashes should not pay.
 */
function nativeOrPortable(): HashText {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  let crypto: NodeCrypto | undefined;
  try {
    crypto = runtime?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
  } catch {
    crypto = undefined;
  }
  const { hash, createHash } = crypto ?? {};
  if (hash) return (text) => hash('sha256', text, 'hex');
  if (createHash) return (text) => createHash('sha256').update(text, 'utf8').digest('hex');
  return (text) => bytesToHex(sha256(new TextEncoder().encode(text)));
}

let hashText: HashText | undefined;

/**
 * SHA-256 of a text's UTF-8 bytes, in hex: Node's native hash where available, `@noble/hashes`
 * in browsers and edge runtimes. Memo keys of long texts use it, so they are hashed on every lookup.
 */
export function sha256Hex(text: string): string {
  hashText ??= nativeOrPortable();
  return hashText(text);
}
