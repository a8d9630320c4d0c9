/**
 * Exact counting through the counter: ExactTokenCounter and its engines against raw tiktoken,
 * gpt-tokenizer and js-tiktoken on real text from node_modules; the per-message memo; a long
 * conversation re-measured after one new message; pathological inputs through the counter.
 * The encoder alone is benchmarked in packages/bpe/bench.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Message } from '@ctxguard/core';
import { type ExactEngine, ExactTokenCounter, MemoizedCounter } from '@ctxguard/token-counter';
import { EncoderPool } from '@ctxguard/token-counter/internal';
import { clearMergeCache, countTokens as gptCountTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { getEncoding } from 'js-tiktoken';
import { get_encoding } from 'tiktoken';
import type { BenchHarness, ComparisonResult } from '../../../bench/harness.ts';
import { type CorpusClass, chunks, classText } from '../../../test/support/real-text-corpus.ts';

const ctx = { provider: 'openai', model: 'gpt-4o' };
const CLASSES: CorpusClass[] = ['prose', 'code', 'json', 'cjk'];
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/** Round-robin over a pool of inputs; each case gets its own cursor so all see the same sequence. */
function cursor(pool: readonly string[]): () => string {
  let i = 0;
  return () => pool[i++ % pool.length] as string;
}

/** A file of a package in the pnpm store (`node_modules/.pnpm/<name>@<version>/…`), newest version first. */
function storeFile(prefix: string, path: string): string {
  const store = fileURLToPath(new URL('../../../node_modules/.pnpm/', import.meta.url));
  for (const entry of readdirSync(store)
    .filter((e) => e.startsWith(prefix))
    .sort()
    .reverse()) {
    const file = join(store, entry, path);
    if (existsSync(file)) return file;
  }
  throw new Error(`bench input ${prefix}…/${path} not found in node_modules/.pnpm`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function timeOnce(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

export async function run(h: BenchHarness): Promise<void> {
  const pool = new EncoderPool();
  const engines: Record<string, ExactEngine> = {
    bpe: await pool.acquire('bpe', 'o200k_base'),
    tiktoken: await pool.acquire('tiktoken', 'o200k_base'),
    'gpt-tokenizer': await pool.acquire('gpt-tokenizer', 'o200k_base'),
  };
  const counter = new ExactTokenCounter({ pool });
  await counter.ready(ctx);
  const tk = get_encoding('o200k_base');
  const js = getEncoding('o200k_base');

  // Contenders count a whole pass over the same inputs. Passes are interleaved round by round and
  // the fastest pass of each contender is kept, so load from other processes does not pick a winner.
  const contenders: [string, (text: string) => unknown][] = [
    ['raw gpt-tokenizer', (t) => gptCountTokens(t)],
    ['raw tiktoken', (t) => tk.encode_ordinary(t).length],
    ['raw js-tiktoken', (t) => js.encode(t).length],
    ['ours: ExactTokenCounter default (bpe)', (t) => counter.estimate(t, ctx)],
    ['ours: bpe engine', (t) => engines.bpe?.count(t)],
    ['ours: tiktoken engine', (t) => engines.tiktoken?.count(t)],
    ['ours: gpt-tokenizer engine', (t) => engines['gpt-tokenizer']?.count(t)],
  ];
  const rounds = h.quick ? 3 : 9;
  const bestPass = (inputs: readonly string[]): number[] => {
    const best = contenders.map(() => Number.POSITIVE_INFINITY);
    for (const [, count] of contenders) for (const text of inputs) count(text);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < contenders.length; k++) {
        const index = (k + round) % contenders.length;
        const [name, count] = contenders[index] as [string, (text: string) => unknown];
        // js-tiktoken is 10–100× slower; two passes are enough to see it.
        if (name === 'raw js-tiktoken' && round >= 2) continue;
        const start = performance.now();
        for (const text of inputs) count(text);
        best[index] = Math.min(best[index] as number, performance.now() - start);
      }
    }
    return best;
  };
  const names = contenders.map(([n]) => n);
  const ratioRow = (cls: string, values: number[], higherIsBetter: boolean): (string | number)[] => {
    const rawIdx = names.map((n, i) => (n.startsWith('raw') ? i : -1)).filter((i) => i >= 0);
    const pick = (a: number, b: number) =>
      higherIsBetter
        ? (values[b] as number) > (values[a] as number)
        : (values[b] as number) < (values[a] as number);
    const fastest = rawIdx.reduce((a, b) => (pick(a, b) ? b : a));
    const ours = values[3] as number;
    const speed = higherIsBetter ? ours / (values[fastest] as number) : (values[fastest] as number) / ours;
    return [cls, ...values, (names[fastest] as string).replace('raw ', ''), speed];
  };
  const throughputRows: (string | number)[][] = [];
  const messageRows: (string | number)[][] = [];
  for (const cls of CLASSES) {
    const text = classText(cls);
    const blocks = chunks(text, 16_384, h.quick ? 8 : 16);
    const blockBytes = blocks.reduce((sum, t) => sum + utf8Bytes(t), 0);
    throughputRows.push(
      ratioRow(
        cls,
        bestPass(blocks).map((ms) => blockBytes / 1e3 / ms),
        true,
      ),
    );
    const messages = chunks(text, 200, 2_000);
    messageRows.push(
      ratioRow(
        cls,
        bestPass(messages).map((ms) => (ms * 1000) / messages.length),
        false,
      ),
    );
  }
  h.table(
    `Exact o200k_base throughput, MB/s (UTF-8) on 16K-char blocks of real text (best of ${rounds} interleaved passes)`,
    ['class', ...names, 'fastest raw', 'ours default ÷ fastest raw (speed)'],
    throughputRows,
  );
  h.table(
    `Exact o200k_base, µs per 200-character message of real text (2,000 messages, best of ${rounds} interleaved passes)`,
    ['class', ...names, 'fastest raw', 'ours default ÷ fastest raw (speed)'],
    messageRows,
  );
  const prose = chunks(classText('prose'), 200, 2_000);
  const proseNext = cursor(prose);
  const proseOurs = cursor(prose);
  const proseBpe = cursor(prose);
  await h.compare(
    'o200k_base exact count of one 200-char prose message (round robin over 2,000)',
    ['raw gpt-tokenizer', () => gptCountTokens(proseNext())],
    [
      ['ours: ExactTokenCounter default (bpe)', () => counter.estimate(proseOurs(), ctx)],
      ['ours: bpe engine', () => engines.bpe?.count(proseBpe())],
    ],
    { time: h.quick ? 200 : 1000 },
  );

  // Repeated counting of an unchanged message: the memo answers.
  const sample = chunks(classText('prose'), 200, 500);
  const msgs: Message[] = sample.map((content) => ({ role: 'user', content }));
  const memoCounter = new ExactTokenCounter({ pool });
  await memoCounter.ready(ctx);
  for (const m of msgs) memoCounter.estimateMessage(m, ctx);
  const noMemo = new ExactTokenCounter({ pool, memo: false });
  await noMemo.ready(ctx);
  const lookup = new Map(sample.map((s, i) => [s, i]));
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  await h.compare(
    'Re-counting an unchanged 200-char message (500 distinct, round robin)',
    ['full exact count (memo off)', () => noMemo.estimateMessage(msgs[a++ % msgs.length] as Message, ctx)],
    [
      [
        'memo hit, same object (leaf check)',
        () => memoCounter.estimateMessage(msgs[b++ % msgs.length] as Message, ctx),
      ],
      [
        'memo hit, new object with the same content (content key)',
        () =>
          memoCounter.estimateMessage({ role: 'user', content: sample[c++ % sample.length] as string }, ctx),
      ],
      ['reference: Map.get(content string)', () => lookup.get(sample[d++ % sample.length] as string)],
    ],
    { time: h.quick ? 150 : 500 },
  );

  // 4. Incremental: 10,000-message conversation, one appended message.
  await incremental(h, pool);

  // 6. Pathological inputs.
  await pathological(h, engines, tk, js);

  counter.dispose();
  memoCounter.dispose();
  noMemo.dispose();
  for (const engine of Object.values(engines)) engine.dispose();
  tk.free();
}

function conversation(size: number): Message[] {
  const pools = CLASSES.map((cls) => chunks(classText(cls), 200, 3_000));
  const out: Message[] = [];
  for (let i = 0; i < size; i++) {
    const text = pools[i % pools.length]?.[Math.floor(i / pools.length) % 3_000] ?? 'x';
    if (i % 10 === 7) {
      out.push({
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: `c${i}`, toolName: 'search', input: { query: text.slice(0, 40) } },
        ],
      });
    } else if (i % 10 === 8) {
      out.push({
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: `c${i - 1}`, toolName: 'search', output: text }],
      });
    } else {
      out.push({ role: i % 2 ? 'assistant' : 'user', content: text });
    }
  }
  return out;
}

async function incremental(h: BenchHarness, pool: EncoderPool): Promise<ComparisonResult> {
  const size = 10_000;
  const messages = conversation(size);
  const full = new ExactTokenCounter({ pool, memo: false });
  const memo = new ExactTokenCounter({ pool });
  const wrapped = new MemoizedCounter(new ExactTokenCounter({ pool, memo: false }));
  await Promise.all([full.ready(ctx), memo.ready(ctx)]);
  await memo.measureConversation({ messages }, ctx);
  await wrapped.measureConversation({ messages }, ctx, { accuracy: 'exact' });
  let n = 0;
  const appended = () =>
    ({
      role: 'user',
      content: `Follow-up question number ${n++}: what changed in the last step?`,
    }) as Message;
  const withAppended = async (list: Message[], measure: (l: Message[]) => Promise<unknown>) => {
    list.push(appended());
    await measure(list);
    list.pop();
  };
  const result = await h.compare(
    'Re-measure a 10,000-message conversation after appending one message (exact o200k_base)',
    [
      'full recount (memo off)',
      () => withAppended(messages, (l) => full.measureConversation({ messages: l }, ctx)),
    ],
    [
      [
        'ExactTokenCounter memo (same objects)',
        () => withAppended(messages, (l) => memo.measureConversation({ messages: l }, ctx)),
      ],
      [
        'ExactTokenCounter memo (every message object rebuilt per call: content-addressed)',
        () =>
          withAppended(
            messages.map((m) => ({ ...m })),
            (l) => memo.measureConversation({ messages: l }, ctx),
          ),
      ],
      [
        'MemoizedCounter(ExactTokenCounter)',
        () =>
          withAppended(messages, (l) =>
            wrapped.measureConversation({ messages: l }, ctx, { accuracy: 'exact' }),
          ),
      ],
    ],
    { time: h.quick ? 300 : 1500, iterations: 5 },
  );
  full.dispose();
  memo.dispose();
  wrapped.dispose();
  return result;
}

async function pathological(
  h: BenchHarness,
  engines: Record<string, ExactEngine>,
  tk: ReturnType<typeof get_encoding>,
  js: ReturnType<typeof getEncoding>,
): Promise<void> {
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
  const inputs: [string, string][] = [];
  for (const n of sizes) inputs.push([`CJK ideographs U+4E00–U+9FFF, uniform (${n / 1000}k)`, uniform(n)]);
  for (const n of sizes) inputs.push([`Han characters of real docs, scrambled (${n / 1000}k)`, scrambled(n)]);
  inputs.push([
    `letters of real CJK docs, spaces and punctuation removed (${sizes.at(-1)! / 1000}k)`,
    lettersOnly.slice(0, sizes.at(-1)),
  ]);
  inputs.push([`base64 of tiktoken_bg.wasm (${sizes.at(-1)! / 1000}k)`, base64.slice(0, sizes.at(-1))]);
  inputs.push([
    `minified js-yaml.min.js (${Math.min(minified.length, sizes.at(-1)!) / 1000}k)`,
    minified.slice(0, sizes.at(-1)),
  ]);

  const cap = h.quick ? 4_000 : 30_000;
  const rawLibs: [string, (t: string) => number][] = [
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
  const lastMs = new Map<string, { chars: number; ms: number }>();
  const rows: (string | number)[][] = [];
  const tiktokenRouted = new ExactTokenCounter({ engine: 'tiktoken' });
  await tiktokenRouted.ready(ctx);
  for (const [label, text] of inputs) {
    const kb = utf8Bytes(text) / 1024;
    const family = label.replace(/\(.*\)/, '');
    engines.bpe?.count(text);
    const ours = median(Array.from({ length: 5 }, () => timeOnce(() => engines.bpe?.count(text))));
    const routed = median(
      Array.from({ length: 3 }, () => timeOnce(() => tiktokenRouted.estimate(text, ctx))),
    );
    const row: (string | number)[] = [
      label,
      kb,
      engines.bpe?.count(text) ?? 0,
      ours,
      (ours * 1000) / kb,
      (routed * 1000) / kb,
    ];
    for (const [name, count] of rawLibs) {
      const key = `${name}:${family}`;
      const previous = lastMs.get(key);
      // Quadratic projection from the previous size of the same input family; skip runs projected past the cap.
      const projected = previous ? previous.ms * (text.length / previous.chars) ** 2 : 0;
      if (previous && projected > cap) {
        row.push(`skipped (≈${(projected / 1000).toFixed(0)} s projected)`);
        continue;
      }
      if (name === 'js-tiktoken' && !previous && text.length > 5_000 && /CJK|Han|letters/.test(label)) {
        const probe = text.slice(0, 2_500);
        const probeMs = timeOnce(() => count(probe));
        const estimate = probeMs * (text.length / probe.length) ** 2;
        if (estimate > cap) {
          lastMs.set(key, { chars: probe.length, ms: probeMs });
          row.push(
            `skipped (≈${(estimate / 1000).toFixed(0)} s projected; 2.5k: ${((probeMs * 1000) / (utf8Bytes(probe) / 1024)).toFixed(0)} µs/KB)`,
          );
          continue;
        }
      }
      const ms = timeOnce(() => count(text));
      lastMs.set(key, { chars: text.length, ms });
      row.push((ms * 1000) / kb);
    }
    rows.push(row);
  }
  tiktokenRouted.dispose();
  h.table(
    'Pathological inputs: time per KB (µs/KB, lower is better); ours = median of 5, raw libraries run once',
    [
      'input',
      'KB',
      'tokens',
      'ours bpe ms',
      'ours bpe µs/KB',
      'ours ExactTokenCounter(engine: tiktoken → long runs to bpe) µs/KB',
      'raw tiktoken µs/KB',
      'raw gpt-tokenizer µs/KB',
      'raw js-tiktoken µs/KB',
    ],
    rows,
  );
}
