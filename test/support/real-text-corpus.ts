/**
 * Real text the heuristic is derived from and measured on: documentation, sources and JSON
 * that ship inside `node_modules` (written by other projects, not by ctxguard), grouped by
 * content class. Deterministic for a given lockfile; packages that are missing are skipped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The classes of the corpus (the same names as `ContentClass`). */
export type CorpusClass = 'prose' | 'code' | 'json' | 'cjk';

/** One document of the corpus. */
export interface CorpusDocument {
  cls: CorpusClass;
  /** Path relative to `node_modules/.pnpm`. */
  source: string;
  text: string;
}

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('real-text-corpus: cannot find the workspace root');
    dir = up;
  }
  return dir;
}

function packageDir(store: string, name: string): string | undefined {
  const prefix = `${name.replace('/', '+')}@`;
  const entries = readdirSync(store)
    .filter((e) => e.startsWith(prefix))
    .sort();
  for (const entry of entries.reverse()) {
    const dir = join(store, entry, 'node_modules', name);
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  return undefined;
}

function walk(dir: string, accept: (path: string) => boolean, out: string[] = [], depth = 0): string[] {
  if (depth > 6 || !existsSync(dir)) return out;
  for (const entry of readdirSync(dir).sort()) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    const stat = statSync(path);
    if (stat.isDirectory()) walk(path, accept, out, depth + 1);
    else if (stat.isFile() && accept(path)) out.push(path);
  }
  return out;
}

function stripFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/\n{3,}/g, '\n\n');
}

function isMinified(text: string): boolean {
  const lines = text.split('\n');
  return lines.some((line) => line.length > 1000);
}

const PROSE_PACKAGES = [
  'typescript',
  'zod',
  'vitest',
  'vite',
  'ioredis',
  'fast-check',
  '@biomejs/biome',
  'postcss',
  'semver',
  'tinybench',
  'publint',
  'tsdown',
  'rolldown',
  'esbuild',
  '@changesets/cli',
  'lru-cache',
  'js-yaml',
  'micromatch',
  'debug',
  'tiktoken',
  'gpt-tokenizer',
  'fast-glob',
  'picomatch',
  'chai',
  'magic-string',
  'turbo',
];
const CODE_SOURCES: [name: string, sub: string, ext: RegExp, maxFiles: number][] = [
  ['zod', 'src/v4/core', /\.ts$/, 40],
  ['zod', 'src/v4/classic', /\.ts$/, 20],
  ['ioredis', 'built', /\.js$/, 30],
  ['semver', '', /\.js$/, 40],
  ['fast-check', 'lib/esm/arbitrary', /\.js$/, 40],
  ['postcss', 'lib', /\.js$/, 30],
  ['typescript', 'lib', /^lib\.es20\d\d\.[a-z]+\.d\.ts$/, 40],
  ['lru-cache', 'dist/esm', /\.js$/, 5],
  ['js-yaml', 'lib', /\.js$/, 30],
  ['micromatch', '', /\.js$/, 5],
  ['picomatch', 'lib', /\.js$/, 10],
  ['magic-string', 'dist', /\.mjs$/, 2],
  ['chai', 'lib/chai', /\.js$/, 30],
];
const JSON_PACKAGES = [
  ...PROSE_PACKAGES,
  'ai',
  'openai',
  '@ai-sdk/provider',
  'undici-types',
  'fast-glob',
  'cac',
  'ansis',
];

let cached: CorpusDocument[] | undefined;

/** Loads the corpus once per process (about 2–3 MB of text). */
export function loadCorpus(): CorpusDocument[] {
  if (cached) return cached;
  const store = join(repoRoot(), 'node_modules', '.pnpm');
  const docs: CorpusDocument[] = [];
  const add = (cls: CorpusClass, path: string, text: string) => {
    if (text.trim().length > 200) docs.push({ cls, source: relative(store, path), text });
  };
  const seen = new Set<string>();
  for (const name of PROSE_PACKAGES) {
    const dir = packageDir(store, name);
    if (!dir) continue;
    for (const file of ['README.md', 'docs/README.md']) {
      const path = join(dir, file);
      if (existsSync(path) && !seen.has(path)) {
        seen.add(path);
        add('prose', path, stripFences(readFileSync(path, 'utf8')));
      }
    }
  }
  for (const [name, sub, ext, maxFiles] of CODE_SOURCES) {
    const dir = packageDir(store, name);
    if (!dir) continue;
    const files = walk(
      resolve(dir, sub),
      (p) => ext.test(p.split('/').pop() ?? '') && !p.endsWith('.map') && !/\.min\./.test(p),
    );
    for (const path of files.slice(0, maxFiles)) {
      const text = readFileSync(path, 'utf8');
      if (!isMinified(text) && text.length < 200_000) add('code', path, text);
    }
  }
  for (const name of JSON_PACKAGES) {
    const dir = packageDir(store, name);
    if (!dir) continue;
    const path = join(dir, 'package.json');
    if (!seen.has(path)) {
      seen.add(path);
      add('json', path, readFileSync(path, 'utf8'));
    }
  }
  const biome = packageDir(store, '@biomejs/biome');
  if (biome) {
    for (const file of ['configuration_schema.json', 'manifest_schema.json']) {
      const path = join(biome, file);
      if (existsSync(path)) add('json', path, readFileSync(path, 'utf8').slice(0, 400_000));
    }
    for (const file of ['README.zh-CN.md', 'README.zh-TW.md', 'README.ja.md', 'README.kr.md']) {
      const path = join(biome, file);
      if (existsSync(path)) add('cjk', path, stripFences(readFileSync(path, 'utf8')));
    }
  }
  const ts = packageDir(store, 'typescript');
  if (ts) {
    const typesMap = join(ts, 'lib', 'typesMap.json');
    if (existsSync(typesMap)) add('json', typesMap, readFileSync(typesMap, 'utf8'));
    for (const locale of ['zh-cn', 'ja', 'ko', 'zh-tw']) {
      const path = join(ts, 'lib', locale, 'diagnosticMessages.generated.json');
      if (!existsSync(path)) continue;
      const messages = Object.values(JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>);
      // The first 60,000 characters of messages per locale keep one file from dominating.
      add('cjk', path, messages.join('\n').slice(0, 60_000));
    }
  }
  cached = docs;
  return docs;
}

/** All text of one class, documents joined by a blank line. */
export function classText(cls: CorpusClass): string {
  return loadCorpus()
    .filter((d) => d.cls === cls)
    .map((d) => d.text)
    .join('\n\n');
}

/**
 * Splits text into chunks of about `size` characters, cut at a line end when one is near, so
 * a chunk never starts mid-word; at most `max` chunks, spread evenly over the text.
 */
export function chunks(text: string, size: number, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  let start = 0;
  while (start + size <= text.length) {
    let end = start + size;
    const nl = text.lastIndexOf('\n', end);
    if (nl > start + size * 0.8) end = nl + 1;
    out.push(text.slice(start, end));
    start = end;
  }
  if (out.length <= max) return out;
  const step = out.length / max;
  return Array.from({ length: max }, (_, i) => out[Math.floor(i * step)] as string);
}

const BLOCK = 4_000;

function split(cls: CorpusClass, keep: 0 | 1): string {
  const parts: string[] = [];
  for (const doc of loadCorpus()) {
    if (doc.cls !== cls) continue;
    for (let b = 0; b * BLOCK < doc.text.length; b++) {
      if (b % 2 !== keep) continue;
      let start = b * BLOCK;
      const nl = doc.text.indexOf('\n', start);
      if (start > 0 && nl !== -1 && nl - start < 400) start = nl + 1;
      let end = Math.min(doc.text.length, (b + 1) * BLOCK);
      const nlEnd = doc.text.indexOf('\n', end);
      if (end < doc.text.length && nlEnd !== -1 && nlEnd - end < 400) end = nlEnd + 1;
      parts.push(doc.text.slice(start, end));
    }
  }
  return parts.join('\n\n');
}

/** The training half of a class: even 4,000-character blocks of every document. */
export function trainingText(cls: CorpusClass): string {
  return split(cls, 0);
}

/** The held-out half: odd 4,000-character blocks (documents shorter than one block are training only). */
export function heldOutText(cls: CorpusClass): string {
  return split(cls, 1);
}
