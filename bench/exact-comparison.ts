/**
 * Pieces shared by the exact-count benchmarks (`@ctxguard/bpe` against the raw libraries, and
 * `@ctxguard/token-counter`'s counters against the same libraries): inputs, timing and passes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clearMergeCache, countTokens as gptCountTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { getEncoding } from 'js-tiktoken';
import type { get_encoding } from 'tiktoken';
import { classText } from '../test/support/real-text-corpus.ts';
import type { BenchHarness } from './harness.ts';

/** UTF-8 size of a text in bytes. */
export const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;

/** A file of a package in the pnpm store (`node_modules/.pnpm/<name>@<version>/…`), newest version first. */
export function storeFile(prefix: string, path: string): string {
  const store = fileURLToPath(new URL('../node_modules/.pnpm/', import.meta.url));
  for (const entry of readdirSync(store)
    .filter((e) => e.startsWith(prefix))
    .sort()
    .reverse()) {
    const file = join(store, entry, path);
    if (existsSync(file)) return file;
  }
  throw new Error(`bench input ${prefix}…/${path} not found in node_modules/.pnpm`);
}

export { median } from './harness.ts';

/** Milliseconds one call of `fn` takes. */
export function timeOnce(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** A named way to count a text. */
export type Contender = [name: string, count: (text: string) => unknown];

/**
 * The fastest whole pass over `inputs` of each contender, in ms. Passes are interleaved round by
 * round (each round starting at a different contender), so load from other processes does not pick
 * a winner; `slow` contenders run two rounds only.
 */
export function bestPasses(
  contenders: readonly Contender[],
  inputs: readonly string[],
  rounds: number,
  slow: ReadonlySet<string> = new Set(),
): number[] {
  const best = contenders.map(() => Number.POSITIVE_INFINITY);
  for (const [, count] of contenders) for (const text of inputs) count(text);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const index = (k + round) % contenders.length;
      const [name, count] = contenders[index] as Contender;
      if (slow.has(name) && round >= 2) continue;
      const start = performance.now();
      for (const text of inputs) count(text);
      best[index] = Math.min(best[index] as number, performance.now() - start);
    }
  }
  return best;
}

/**
 * Long unbroken runs that are quadratic for tiktoken, gpt-tokenizer and js-tiktoken: uniform and
 * real-text Han at growing sizes, letters of CJK docs, base64 of a WASM file, minified JavaScript.
 * `oursOnlySizes` add scrambled-Han sizes only our encoder is run on.
 */
export function pathologicalInputs(
  h: BenchHarness,
  oursOnlySizes: readonly number[] = [],
): [string, string][] {
  const han = [...new Set(classText('cjk').match(/\p{Script=Han}/gu) ?? [])];
  const scrambled = (n: number) => {
    let s = '';
    let x = 12_345;
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
      s += han[(x >>> 8) % han.length];
    }
    return s;
  };
  const uniform = (n: number) => {
    let s = '';
    let x = 987_654;
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
      s += String.fromCharCode(0x4e00 + ((x >>> 8) % 0x5200));
    }
    return s;
  };
  const require = createRequire(import.meta.url);
  const wasm = readFileSync(require.resolve('tiktoken/tiktoken_bg.wasm'));
  const base64 = Buffer.from(wasm).toString('base64');
  const minified = readFileSync(storeFile('js-yaml@', 'node_modules/js-yaml/dist/js-yaml.min.js'), 'utf8');
  const lettersOnly = classText('cjk').replace(/[^\p{L}]/gu, '');
  const sizes = h.quick ? [10_000, 20_000] : [10_000, 20_000, 40_000];
  const largest = sizes.at(-1) as number;
  const inputs: [string, string][] = [];
  for (const n of sizes) inputs.push([`CJK ideographs U+4E00–U+9FFF, uniform (${n / 1000}k)`, uniform(n)]);
  for (const n of sizes) inputs.push([`Han characters of real docs, scrambled (${n / 1000}k)`, scrambled(n)]);
  for (const n of oursOnlySizes)
    inputs.push([`Han characters of real docs, scrambled (${n / 1000}k, ours only)`, scrambled(n)]);
  inputs.push([
    `letters of real CJK docs, spaces and punctuation removed (${largest / 1000}k)`,
    lettersOnly.slice(0, largest),
  ]);
  inputs.push([`base64 of tiktoken_bg.wasm (${largest / 1000}k)`, base64.slice(0, largest)]);
  inputs.push([
    `minified js-yaml.min.js (${Math.min(minified.length, largest) / 1000}k)`,
    minified.slice(0, largest),
  ]);
  return inputs;
}

/** The last size each library was timed at, per input family, to project the next run. */
export type LastRuns = Map<string, { chars: number; ms: number }>;

/**
 * µs/KB of each library on one pathological input, run once. A run projected (quadratically, from
 * the previous size of the same input family, or from a 2.5k probe for js-tiktoken on CJK) past
 * `capMs` is skipped and says so.
 */
export function rawLibraryCells(
  label: string,
  text: string,
  libraries: readonly [name: string, count: (text: string) => number][],
  lastRuns: LastRuns,
  capMs: number,
): (string | number)[] {
  const kb = utf8Bytes(text) / 1024;
  const family = label.replace(/\(.*\)/, '');
  const cells: (string | number)[] = [];
  for (const [name, count] of libraries) {
    const key = `${name}:${family}`;
    const previous = lastRuns.get(key);
    const projected = previous ? previous.ms * (text.length / previous.chars) ** 2 : 0;
    if (previous && projected > capMs) {
      cells.push(`skipped (≈${(projected / 1000).toFixed(0)} s projected)`);
      continue;
    }
    if (name === 'js-tiktoken' && !previous && text.length > 5_000 && /CJK|Han|letters/.test(label)) {
      const probe = text.slice(0, 2_500);
      const probeMs = timeOnce(() => count(probe));
      const estimate = probeMs * (text.length / probe.length) ** 2;
      if (estimate > capMs) {
        lastRuns.set(key, { chars: probe.length, ms: probeMs });
        cells.push(
          `skipped (≈${(estimate / 1000).toFixed(0)} s projected; 2.5k: ${((probeMs * 1000) / (utf8Bytes(probe) / 1024)).toFixed(0)} µs/KB)`,
        );
        continue;
      }
    }
    const ms = timeOnce(() => count(text));
    lastRuns.set(key, { chars: text.length, ms });
    cells.push((ms * 1000) / kb);
  }
  return cells;
}

/** tiktoken (WASM), gpt-tokenizer (its merge cache cleared, so each run counts from scratch) and js-tiktoken. */
export function rawLibraries(
  tk: ReturnType<typeof get_encoding>,
  js: ReturnType<typeof getEncoding>,
): [name: string, count: (text: string) => number][] {
  return [
    ['tiktoken', (t) => tk.encode_ordinary(t).length],
    [
      'gpt-tokenizer',
      (t) => {
        clearMergeCache();
        return gptCountTokens(t);
      },
    ],
    ['js-tiktoken', (t) => js.encode(t).length],
  ];
}
