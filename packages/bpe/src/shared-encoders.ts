import { BpeEncoder } from './bpe-encoder.js';
import { checkEncoding, checkText, type Encoding } from './encoding.js';

let shared: Map<Encoding, Promise<BpeEncoder>> | undefined;

/**
 * The process-wide encoder of an encoding, loaded on first use and shared by every caller (a
 * failed load is retried on the next call). Use {@link BpeEncoder.load} for one you own.
 */
export function loadEncoder(encoding: Encoding): Promise<BpeEncoder> {
  let checked: Encoding;
  try {
    checked = checkEncoding(encoding);
  } catch (error) {
    return Promise.reject(error);
  }
  shared ??= new Map();
  const map = shared;
  let pending = map.get(checked);
  if (!pending) {
    pending = BpeEncoder.load(checked);
    pending.catch(() => {
      if (map.get(checked) === pending) map.delete(checked);
    });
    map.set(checked, pending);
  }
  return pending;
}

/** Exact token count of `text` in `encoding`, with the shared encoder (loaded on the first call). */
export async function countTokens(text: string, encoding: Encoding): Promise<number> {
  checkText(text);
  return (await loadEncoder(encoding)).count(text);
}

/** Exact token ids of `text` in `encoding`, with the shared encoder (loaded on the first call). */
export async function encode(text: string, encoding: Encoding): Promise<number[]> {
  checkText(text);
  return (await loadEncoder(encoding)).encode(text);
}
