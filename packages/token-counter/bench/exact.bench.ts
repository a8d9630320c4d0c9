import type { Message } from '@ctxguard/core';
import { countTokens as gptCountTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { getEncoding } from 'js-tiktoken';
import { get_encoding } from 'tiktoken';
import {
  bestPasses,
  type LastRuns,
  median,
  pathologicalInputs,
  rawLibraries,
  rawLibraryCells,
  timeOnce,
  utf8Bytes,
} from '../../../bench/exact-comparison.ts';
import type { BenchHarness, ComparisonResult } from '../../../bench/harness.ts';
import { type CorpusClass, chunks, classText } from '../../../test/support/real-text-corpus.ts';
import { sharedEncoderPool } from '../src/encoder-pool.ts';
import { type ExactEngine, ExactTokenCounter, MemoizedCounter } from '../src/index.ts';

const ctx = { provider: 'openai', model: 'gpt-4o' };
const CLASSES: CorpusClass[] = ['prose', 'code', 'json', 'cjk'];

/** Round-robin over a pool of inputs; each case gets its own cursor so all see the same sequence. */
function cursor(pool: readonly string[]): () => string {
  let i = 0;
  return () => pool[i++ % pool.length] as string;
}

export async function run(h: BenchHarness): Promise<void> {
  const pool = sharedEncoderPool();
  const engines: Record<string, ExactEngine> = {
    bpe: await pool.acquire('bpe', 'o200k_base'),
    tiktoken: await pool.acquire('tiktoken', 'o200k_base'),
  };
  const counter = new ExactTokenCounter();
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
  ];
  const rounds = h.quick ? 3 : 9;
  const bestPass = (inputs: readonly string[]): number[] =>
    bestPasses(contenders, inputs, rounds, new Set(['raw js-tiktoken']));
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
  const memoCounter = new MemoizedCounter(new ExactTokenCounter());
  await (memoCounter.inner as ExactTokenCounter).ready(ctx);
  for (const m of msgs) memoCounter.estimateMessage(m, ctx);
  const noMemo = new ExactTokenCounter();
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
  await incremental(h);

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

async function incremental(h: BenchHarness): Promise<ComparisonResult> {
  const size = 10_000;
  const messages = conversation(size);
  const full = new ExactTokenCounter();
  const memo = new MemoizedCounter(new ExactTokenCounter());
  const exact = { accuracy: 'exact' } as const;
  await full.ready(ctx);
  await memo.measureConversation({ messages }, ctx, exact);
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
        'MemoizedCounter(ExactTokenCounter) (same objects)',
        () => withAppended(messages, (l) => memo.measureConversation({ messages: l }, ctx, exact)),
      ],
      [
        'MemoizedCounter(ExactTokenCounter) (every message object rebuilt per call: content-addressed)',
        () =>
          withAppended(
            messages.map((m) => ({ ...m })),
            (l) => memo.measureConversation({ messages: l }, ctx, exact),
          ),
      ],
    ],
    { time: h.quick ? 300 : 1500, iterations: 5 },
  );
  full.dispose();
  memo.dispose();
  return result;
}

async function pathological(
  h: BenchHarness,
  engines: Record<string, ExactEngine>,
  tk: ReturnType<typeof get_encoding>,
  js: ReturnType<typeof getEncoding>,
): Promise<void> {
  const inputs = pathologicalInputs(h);
  const cap = h.quick ? 4_000 : 30_000;
  const rawLibs = rawLibraries(tk, js);
  const lastMs: LastRuns = new Map();
  const rows: (string | number)[][] = [];
  const tiktokenRouted = new ExactTokenCounter({ engine: 'tiktoken' });
  await tiktokenRouted.ready(ctx);
  for (const [label, text] of inputs) {
    const kb = utf8Bytes(text) / 1024;
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
    row.push(...rawLibraryCells(label, text, rawLibs, lastMs, cap));
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
