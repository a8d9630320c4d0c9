import { BpeEncoder } from '@ctxguard/bpe';
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
import type { BenchHarness } from '../../../bench/harness.ts';
import { type CorpusClass, chunks, classText } from '../../../test/support/real-text-corpus.ts';

const CLASSES: CorpusClass[] = ['prose', 'code', 'json', 'cjk'];

export async function run(h: BenchHarness): Promise<void> {
  const ours = await BpeEncoder.load('o200k_base');
  const tk = get_encoding('o200k_base');
  const js = getEncoding('o200k_base');

  // Contenders count a whole pass over the same inputs. Passes are interleaved round by round and
  // the fastest pass of each contender is kept, so load from other processes does not pick a winner.
  const contenders: [string, (text: string) => unknown][] = [
    ['@ctxguard/bpe', (t) => ours.count(t)],
    ['gpt-tokenizer', (t) => gptCountTokens(t)],
    ['tiktoken (WASM)', (t) => tk.encode_ordinary(t).length],
    ['js-tiktoken', (t) => js.encode(t).length],
  ];
  const rounds = h.quick ? 3 : 9;
  const bestPass = (inputs: readonly string[]): number[] =>
    bestPasses(contenders, inputs, rounds, new Set(['js-tiktoken']));
  const names = contenders.map(([n]) => n);
  /** The row of one class, with ours against the fastest other library. */
  const row = (cls: string, values: number[], higherIsBetter: boolean): (string | number)[] => {
    const others = [1, 2, 3];
    const better = (a: number, b: number) =>
      higherIsBetter
        ? (values[b] as number) > (values[a] as number)
        : (values[b] as number) < (values[a] as number);
    const fastest = others.reduce((a, b) => (better(a, b) ? b : a));
    const speed = higherIsBetter
      ? (values[0] as number) / (values[fastest] as number)
      : (values[fastest] as number) / (values[0] as number);
    return [cls, ...values, names[fastest] as string, speed];
  };
  const throughput: (string | number)[][] = [];
  const perMessage: (string | number)[][] = [];
  for (const cls of CLASSES) {
    const text = classText(cls);
    const blocks = chunks(text, 16_384, h.quick ? 8 : 16);
    const blockBytes = blocks.reduce((sum, t) => sum + utf8Bytes(t), 0);
    throughput.push(
      row(
        cls,
        bestPass(blocks).map((ms) => blockBytes / 1e3 / ms),
        true,
      ),
    );
    const messages = chunks(text, 200, 2_000);
    perMessage.push(
      row(
        cls,
        bestPass(messages).map((ms) => (ms * 1000) / messages.length),
        false,
      ),
    );
  }
  h.table(
    `Exact o200k_base throughput, MB/s (UTF-8) on 16K-char blocks of real text (best of ${rounds} interleaved passes)`,
    ['class', ...names, 'fastest other', 'ours ÷ fastest other (speed)'],
    throughput,
  );
  h.table(
    `Exact o200k_base, µs per 200-character message of real text (2,000 messages, best of ${rounds} interleaved passes)`,
    ['class', ...names, 'fastest other', 'ours vs fastest other (speed)'],
    perMessage,
  );

  await pathological(h, ours, tk, js);
  tk.free();
}

async function pathological(
  h: BenchHarness,
  ours: BpeEncoder,
  tk: ReturnType<typeof get_encoding>,
  js: ReturnType<typeof getEncoding>,
): Promise<void> {
  const inputs = pathologicalInputs(h, h.quick ? [80_000] : [80_000, 160_000]);
  const cap = h.quick ? 4_000 : 30_000;
  const others = rawLibraries(tk, js);
  const lastMs: LastRuns = new Map();
  const rows: (string | number)[][] = [];
  for (const [label, text] of inputs) {
    const kb = utf8Bytes(text) / 1024;
    ours.count(text);
    const ms = median(Array.from({ length: 5 }, () => timeOnce(() => ours.count(text))));
    const row: (string | number)[] = [label, kb, ours.count(text), ms, (ms * 1000) / kb];
    if (label.includes('ours only')) row.push(...others.map(() => 'not run'));
    else row.push(...rawLibraryCells(label, text, others, lastMs, cap));
    rows.push(row);
  }
  h.table(
    'Pathological inputs: time per KB (µs/KB, lower is better); ours = median of 5, the others run once',
    [
      'input',
      'KB',
      'tokens',
      'ours ms',
      'ours µs/KB',
      'tiktoken µs/KB',
      'gpt-tokenizer µs/KB',
      'js-tiktoken µs/KB',
    ],
    rows,
  );
}
