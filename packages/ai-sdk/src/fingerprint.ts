/** Bytes as base64 (browser and Node alike). */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function write(value: unknown, out: string[]): void {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
    out.push('null');
    return;
  }
  if (value === null || typeof value !== 'object') {
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (value instanceof Uint8Array) {
    out.push(JSON.stringify(`bytes:${base64(value)}`));
    return;
  }
  if (value instanceof URL) {
    out.push(JSON.stringify(`url:${value.href}`));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, index) => {
      if (index > 0) out.push(',');
      write(item, out);
    });
    out.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  out.push('{');
  let first = true;
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    write(record[key], out);
  }
  out.push('}');
}

/**
 * JSON text of a prompt value with object keys sorted, so equal values give equal text whatever
 * their key order; bytes and URLs are written as tagged strings.
 */
export function stableJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

/**
 * A 53-bit fingerprint of a text (cyrb53), as base-36: enough to tell whether a message changed
 * between calls, cheap enough to take of every message on every call.
 */
export function fingerprint(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
