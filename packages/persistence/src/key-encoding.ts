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
const allLiteral = /^[a-z0-9_-]*$/;
const plainName = /^k_((?:[a-z0-9_-]|%[0-9a-f]{2})*)\.json$/;
const hashedName = /^h_([0-9a-f]{64})\.json$/;
const scratchName = /^\.ctxguard-(tmp|bak)-(\d+)-[0-9a-f]{16}$/;
const hex = '0123456789abcdef';

let utf8Encoder: TextEncoder | undefined;
let utf8Decoder: TextDecoder | undefined;

function isLiteralByte(byte: number): boolean {
  return (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x5f || byte === 0x2d;
}

/** Escapes a key into the `[a-z0-9_%-]` alphabet (reversible with {@link decodeKey}). */
export function encodeKey(key: string): string {
  if (allLiteral.test(key)) return key;
  utf8Encoder ??= new TextEncoder();
  let out = '';
  for (const byte of utf8Encoder.encode(key)) {
    out += isLiteralByte(byte) ? String.fromCharCode(byte) : `%${hexByte(byte)}`;
  }
  return out;
}

function hexDigit(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

function hexByte(byte: number): string {
  return `${hex[byte >> 4]}${hex[byte & 15]}`;
}

/** Reverses {@link encodeKey}; `undefined` when `encoded` is not a canonical encoding of a well-formed key. */
export function decodeKey(encoded: string): string | undefined {
  if (allLiteral.test(encoded)) return encoded.length > 0 ? encoded : undefined;
  const bytes = new Uint8Array(encoded.length);
  let length = 0;
  let ascii = '';
  let onlyAscii = true;
  for (let index = 0; index < encoded.length; ) {
    let byte = encoded.charCodeAt(index);
    if (byte === 0x25) {
      const high = hexDigit(encoded.charCodeAt(index + 1));
      const low = hexDigit(encoded.charCodeAt(index + 2));
      byte = high * 16 + low;
      if (high < 0 || low < 0 || isLiteralByte(byte)) return undefined;
      index += 3;
    } else {
      if (!isLiteralByte(byte)) return undefined;
      index += 1;
    }
    bytes[length++] = byte;
    if (byte >= 0x80) onlyAscii = false;
    else if (onlyAscii) ascii += String.fromCharCode(byte);
  }
  if (onlyAscii) return ascii;
  try {
    utf8Decoder ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    return utf8Decoder.decode(bytes.subarray(0, length));
  } catch {
    return undefined;
  }
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
