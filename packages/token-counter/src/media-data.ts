/** Where a media part's bytes are: inline (base64 or data URL) or behind a URL we do not fetch. */
export type MediaSource =
  | { kind: 'inline'; base64: string; mediaType: string | undefined }
  | { kind: 'url'; url: string }
  | { kind: 'text'; text: string };

const BASE64_CHARS = /^[A-Za-z0-9+/_-]*={0,2}$/;
const WHITESPACE = /\s+/g;

/** Classifies an image/file `data` string: data URL, remote URL, base64, or (invalid base64) plain text. */
export function mediaSource(data: string): MediaSource {
  if (data.startsWith('data:')) {
    const comma = data.indexOf(',');
    if (comma < 0) return { kind: 'text', text: data };
    const header = data.slice(5, comma);
    const body = data.slice(comma + 1);
    const mediaType = header.split(';')[0] || undefined;
    if (header.endsWith(';base64')) return { kind: 'inline', base64: body, mediaType };
    let text = body;
    try {
      text = decodeURIComponent(body);
    } catch {
      // keep the raw body when it is not valid percent-encoding
    }
    return { kind: 'text', text };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(data)) return { kind: 'url', url: data };
  const head = data.slice(0, 4096).replace(WHITESPACE, '');
  if (head.length > 0 && BASE64_CHARS.test(data.length > 4096 ? head.replace(/=+$/, '') : head)) {
    return { kind: 'inline', base64: data, mediaType: undefined };
  }
  return { kind: 'text', text: data };
}

let decodeTable: Int16Array | undefined;

function base64Table(): Int16Array {
  if (decodeTable) return decodeTable;
  const table = new Int16Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  table['-'.charCodeAt(0)] = 62;
  table['_'.charCodeAt(0)] = 63;
  decodeTable = table;
  return table;
}

/** Number of bytes a base64 string decodes to (whitespace ignored). */
export function base64ByteLength(base64: string): number {
  const table = base64Table();
  let chars = 0;
  for (let i = 0; i < base64.length; i++) {
    const c = base64.charCodeAt(i);
    if (c < 128 && (table[c] ?? -1) >= 0) chars++;
  }
  return Math.floor((chars * 3) / 4);
}

/** Decodes up to `maxBytes` bytes of base64 (standard or URL-safe); invalid characters are skipped. */
export function decodeBase64(base64: string, maxBytes = Number.POSITIVE_INFINITY): Uint8Array {
  const limit = Math.min(maxBytes, Math.floor((base64.length * 3) / 4));
  const table = base64Table();
  const out = new Uint8Array(limit);
  let bits = 0;
  let value = 0;
  let written = 0;
  for (let i = 0; i < base64.length && written < limit; i++) {
    const c = base64.charCodeAt(i);
    const v = c < 128 ? (table[c] ?? -1) : -1;
    if (v < 0) continue;
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[written++] = (value >> bits) & 0xff;
    }
  }
  return written === limit ? out : out.subarray(0, written);
}

/** Pixel size read from an image header. */
export interface ImageSize {
  width: number;
  height: number;
}

/** Reads width and height from PNG, GIF, JPEG or WebP header bytes; `undefined` when unknown. */
export function imageSizeFromBytes(b: Uint8Array): ImageSize | undefined {
  const n = b.length;
  const u16be = (i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
  const u16le = (i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8);
  const u32be = (i: number) =>
    (((b[i] ?? 0) << 24) >>> 0) + ((b[i + 1] ?? 0) << 16) + ((b[i + 2] ?? 0) << 8) + (b[i + 3] ?? 0);
  const ok = (size: ImageSize): ImageSize | undefined =>
    size.width > 0 && size.height > 0 ? size : undefined;
  // PNG
  if (n >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    return ok({ width: u32be(16), height: u32be(20) });
  }
  // GIF
  if (n >= 10 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) {
    return ok({ width: u16le(6), height: u16le(8) });
  }
  // WebP
  if (
    n >= 30 &&
    b[0] === 0x52 &&
    b[1] === 0x49 &&
    b[2] === 0x46 &&
    b[3] === 0x46 &&
    b[8] === 0x57 &&
    b[9] === 0x45
  ) {
    const chunk = String.fromCharCode(b[12] ?? 0, b[13] ?? 0, b[14] ?? 0, b[15] ?? 0);
    if (chunk === 'VP8 ') return ok({ width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff });
    if (chunk === 'VP8L') {
      const b1 = b[21] ?? 0;
      const b2 = b[22] ?? 0;
      const b3 = b[23] ?? 0;
      const b4 = b[24] ?? 0;
      return ok({
        width: 1 + (((b2 & 0x3f) << 8) | b1),
        height: 1 + (((b4 & 0x0f) << 10) | (b3 << 2) | ((b2 & 0xc0) >> 6)),
      });
    }
    if (chunk === 'VP8X') {
      return ok({
        width: 1 + ((b[24] ?? 0) | ((b[25] ?? 0) << 8) | ((b[26] ?? 0) << 16)),
        height: 1 + ((b[27] ?? 0) | ((b[28] ?? 0) << 8) | ((b[29] ?? 0) << 16)),
      });
    }
    return undefined;
  }
  // JPEG: walk the markers to the first start-of-frame
  if (n >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < n) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1] ?? 0;
      if (marker === 0xff) {
        i++;
        continue;
      }
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        i += 2;
        continue;
      }
      const isFrame =
        marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isFrame) return ok({ width: u16be(i + 7), height: u16be(i + 5) });
      i += 2 + u16be(i + 2);
    }
  }
  return undefined;
}

/** Reads an inline image's pixel size from its header (decodes at most ~192 KB). */
export function inlineImageSize(base64: string): ImageSize | undefined {
  return imageSizeFromBytes(decodeBase64(base64, 196_608));
}

const PAGE_OBJECT = /\/Type\s*\/Page(?![a-zA-Z])/g;
const PAGE_TREE_TOKEN = /\/Type\s*\/Pages\b|\/Count\s+(\d+)|>/g;

/** Pages of a PDF: page objects when visible, else the page tree's largest `/Count`; `undefined` when neither is readable. */
export function pdfPageCount(bytes: Uint8Array): number | undefined {
  const text = latin1(bytes);
  let pages = 0;
  PAGE_OBJECT.lastIndex = 0;
  while (PAGE_OBJECT.exec(text) !== null) pages++;
  if (pages > 0) return pages;
  // A page tree is a dictionary holding `/Type /Pages` and `/Count n`. One pass over the tokens,
  // segment by segment between `>` characters (a lazy regex spanning both was quadratic on text
  // full of `/Count` and without `>`).
  let count = 0;
  let treeInSegment = false;
  let segmentCount = 0;
  PAGE_TREE_TOKEN.lastIndex = 0;
  for (let m = PAGE_TREE_TOKEN.exec(text); m !== null; m = PAGE_TREE_TOKEN.exec(text)) {
    if (m[0] === '>') {
      if (treeInSegment) count = Math.max(count, segmentCount);
      treeInSegment = false;
      segmentCount = 0;
    } else if (m[1] !== undefined) segmentCount = Math.max(segmentCount, Number(m[1]));
    else treeInSegment = true;
  }
  if (treeInSegment) count = Math.max(count, segmentCount);
  return count > 0 ? count : undefined;
}

function latin1(bytes: Uint8Array): string {
  let out = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + chunk) as unknown as number[]);
  }
  return out;
}

/** Decodes UTF-8 bytes without throwing (invalid sequences become U+FFFD). */
export function utf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}
