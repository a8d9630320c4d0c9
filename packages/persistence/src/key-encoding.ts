/**
 * File names for keys. A key becomes `k_<escaped>.json`, where every byte of its UTF-8 form
 * outside `[a-z0-9_-]` is written `%hh` (lowercase hex). The names therefore hold only
 * lowercase ASCII, so they cannot collide on case-insensitive or normalizing file systems,
 * never contain a separator, a dot segment or a NUL, and never equal a name Windows reserves
 * (the `k_` prefix sees to that). Keys whose name would pass {@link maxEntryFileNameBytes}
 * are stored as `h_<sha-256 hex>.json` and carry the key inside the file.
 */

/** Longest name (in bytes) a plain entry file may have; longer keys use a hashed name. */
export const maxEntryFileNameBytes = 140;

const plainPrefix = 'k_';
const hashedPrefix = 'h_';
const extension = '.json';
const literal = /^[a-z0-9_-]$/;
const plainName = /^k_((?:[a-z0-9_-]|%[0-9a-f]{2})*)\.json$/;
const hashedName = /^h_([0-9a-f]{64})\.json$/;
const scratchName = /^\.ctxguard-(tmp|bak)-(\d+)-[0-9a-f]{16}$/;
const hex = '0123456789abcdef';

/** Escapes a key into the `[a-z0-9_%-]` alphabet (reversible with {@link decodeKey}). */
export function encodeKey(key: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(key)) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && literal.test(char) ? char : `%${hex[byte >> 4]}${hex[byte & 15]}`;
  }
  return out;
}

/** Reverses {@link encodeKey}; `undefined` when `encoded` is not a canonical encoding of a well-formed key. */
export function decodeKey(encoded: string): string | undefined {
  const bytes: number[] = [];
  for (let index = 0; index < encoded.length; ) {
    if (encoded[index] === '%') {
      bytes.push(Number.parseInt(encoded.slice(index + 1, index + 3), 16));
      index += 3;
    } else {
      bytes.push(encoded.charCodeAt(index));
      index += 1;
    }
  }
  let key: string;
  try {
    key = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
  return key.length > 0 && encodeKey(key) === encoded ? key : undefined;
}

/** The plain file name for `key`, or `undefined` when it would be longer than {@link maxEntryFileNameBytes}. */
export function plainFileName(key: string): string | undefined {
  const name = `${plainPrefix}${encodeKey(key)}${extension}`;
  return name.length <= maxEntryFileNameBytes ? name : undefined;
}

/** The hashed file name for a long key, given the lowercase hex SHA-256 of its UTF-8 form. */
export function hashedFileName(sha256Hex: string): string {
  return `${hashedPrefix}${sha256Hex}${extension}`;
}

/** What a name found in the store's folder is. Anything else is foreign and ignored. */
export type EntryFileName =
  | { kind: 'plain'; key: string }
  | { kind: 'hashed'; hash: string }
  | { kind: 'scratch'; pid: number };

/** Classifies a directory entry name; `undefined` for foreign files. */
export function parseEntryFileName(name: string): EntryFileName | undefined {
  const plain = plainName.exec(name);
  if (plain) {
    if (name.length > maxEntryFileNameBytes) return undefined;
    const key = decodeKey(plain[1]!);
    return key === undefined ? undefined : { kind: 'plain', key };
  }
  const hashed = hashedName.exec(name);
  if (hashed) return { kind: 'hashed', hash: hashed[1]! };
  const scratch = scratchName.exec(name);
  if (scratch) return { kind: 'scratch', pid: Number(scratch[2]) };
  return undefined;
}

/** Name of a scratch file (temp file before rename, or backup link); `random` is 16 hex digits. */
export function scratchFileName(kind: 'tmp' | 'bak', pid: number, random: string): string {
  return `.ctxguard-${kind}-${pid}-${random}`;
}
