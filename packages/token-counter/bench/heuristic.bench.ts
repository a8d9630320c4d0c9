/**
 * Heuristic accuracy and speed. Error = mean |estimate − exact| / exact against the real
 * o200k_base encoder (`tiktoken`), on held-out real text (see test/support/real-text-corpus.ts at the repo root):
 * 200-char and 5,000-char chunks per class, and whole mixed conversations (≥ 20k chars).
 */
import { classifyContent } from '@ctxguard/calibration';
import type { Message } from '@ctxguard/core';
import { conversationOverhead, HeuristicCounter, messageTokens } from '@ctxguard/token-counter';
import { get_encoding, type Tiktoken, type TiktokenEncoding } from 'tiktoken';
import type { BenchHarness } from '../../../bench/harness.ts';
import {
  type CorpusClass,
  chunks,
  heldOutText,
  trainingText,
} from '../../../test/support/real-text-corpus.ts';
import { realConversation } from '../test/real-conversations.ts';

const CLASSES: CorpusClass[] = ['prose', 'code', 'json', 'cjk'];
type TextRule = (text: string) => number;

const charsOver4: TextRule = (t) => t.length / 4;
const wordPunct: TextRule = (t) => (t.match(/\w+|[^\w\s]/gu) ?? []).length;
const utf8 = new TextEncoder();
const bytesOver4: TextRule = (t) => utf8.encode(t).length / 4;

function meanAbsError(estimates: number[], exact: number[]): number {
  let sum = 0;
  for (let i = 0; i < exact.length; i++)
    sum += Math.abs((estimates[i] as number) - (exact[i] as number)) / (exact[i] as number);
  return (100 * sum) / exact.length;
}

const pct = (x: number) => `${x.toFixed(1)}%`;

export async function run(h: BenchHarness): Promise<void> {
  const encoders = new Map<TiktokenEncoding, Tiktoken>();
  const enc = (name: TiktokenEncoding) => {
    let e = encoders.get(name);
    if (!e) {
      e = get_encoding(name);
      encoders.set(name, e);
    }
    return e;
  };
  const exact = (text: string, name: TiktokenEncoding = 'o200k_base') =>
    enc(name).encode_ordinary(text).length;
  const ctx = { provider: 'openai', model: 'o200k-heuristic-bench' };
  const perSize = h.quick ? 40 : 200;

  // Per-class chunks: chars/4, best single rule, ours, ours after 10 learn() samples of that class.
  const rows: (string | number)[][] = [];
  for (const size of [200, 5000]) {
    for (const cls of CLASSES) {
      const sample = chunks(heldOutText(cls), size, perSize);
      const truth = sample.map((t) => exact(t));
      const bestName = cls === 'cjk' ? 'bytes/4' : 'word+punct';
      const best = cls === 'cjk' ? bytesOver4 : wordPunct;
      const uncalibrated = new HeuristicCounter();
      const learned = new HeuristicCounter();
      // 10 samples from the training half, each learned as one whole request with its framing.
      for (const text of chunks(trainingText(cls), Math.max(size, 2000), 10)) {
        const message: Message = { role: 'user', content: text };
        const actual =
          conversationOverhead('openai') + messageTokens(message, { ...ctx, countText: (t) => exact(t) });
        await learned.learn({ ...ctx, actualTokens: actual, messages: [message] });
      }
      rows.push([
        `${size} chars`,
        cls,
        sample.length,
        pct(meanAbsError(sample.map(charsOver4), truth)),
        `${pct(meanAbsError(sample.map(best), truth))} (${bestName})`,
        pct(
          meanAbsError(
            sample.map((t) => uncalibrated.estimate(t, ctx)),
            truth,
          ),
        ),
        pct(
          meanAbsError(
            sample.map((t) => learned.estimate(t, ctx)),
            truth,
          ),
        ),
      ]);
    }
  }

  // Whole conversations: 10 training conversations to learn from, held-out ones to measure.
  const conversations = Array.from({ length: h.quick ? 8 : 30 }, (_, i) =>
    realConversation({ seed: 1000 + i }),
  );
  const training = Array.from({ length: 10 }, (_, i) =>
    realConversation({ seed: 100 + i, half: 'training' }),
  );
  const conversationTokens = (
    conv: ReturnType<typeof realConversation>,
    countText: (t: string) => number,
    provider = 'openai',
  ) => {
    let total =
      conversationOverhead(provider) +
      messageTokens({ role: 'system', content: conv.system }, { provider, model: 'm', countText });
    for (const m of conv.messages) total += messageTokens(m, { provider, model: 'm', countText });
    return total;
  };
  const estimateWith = (
    counter: HeuristicCounter,
    conv: ReturnType<typeof realConversation>,
    c: { provider: string; model: string },
  ) => {
    let total =
      conversationOverhead(c.provider) + counter.estimateMessage({ role: 'system', content: conv.system }, c);
    for (const m of conv.messages) total += counter.estimateMessage(m, c);
    return total;
  };
  const chars = conversations.map((c) => c.chars);
  const conversationRow = async (label: string, encoding: TiktokenEncoding, provider: string) => {
    const c = { provider, model: `${encoding}-like` };
    const truth = conversations.map((conv) => conversationTokens(conv, (t) => exact(t, encoding)));
    const uncalibrated = new HeuristicCounter();
    const learned = new HeuristicCounter();
    for (const conv of training) {
      await learned.learn({
        ...c,
        actualTokens: conversationTokens(conv, (t) => exact(t, encoding)),
        system: conv.system,
        messages: conv.messages,
      });
    }
    const after = conversations.map((conv) => estimateWith(learned, conv, c));
    const worst =
      Math.max(...after.map((e, i) => Math.abs(e - (truth[i] as number)) / (truth[i] as number))) * 100;
    rows.push([
      `conversation (${Math.min(...chars).toLocaleString('en-US')}–${Math.max(...chars).toLocaleString('en-US')} chars)`,
      label,
      conversations.length,
      pct(
        meanAbsError(
          conversations.map((conv) => conversationTokens(conv, charsOver4, provider)),
          truth,
        ),
      ),
      `${pct(
        meanAbsError(
          conversations.map((conv) => conversationTokens(conv, wordPunct, provider)),
          truth,
        ),
      )} (word+punct)`,
      pct(
        meanAbsError(
          conversations.map((conv) => estimateWith(uncalibrated, conv, c)),
          truth,
        ),
      ),
      `${pct(meanAbsError(after, truth))} (worst ${pct(worst)})`,
    ]);
  };
  await conversationRow('mixed, o200k', 'o200k_base', 'openai');
  await conversationRow('mixed, o200k, Anthropic prior 1.23×', 'o200k_base', 'anthropic');
  await conversationRow('mixed, cl100k (other tokenizer)', 'cl100k_base', 'openai');

  h.table(
    'heuristic error vs exact o200k_base (held-out real text; mean |error|)',
    ['sample', 'class', 'n', 'chars/4', 'best single rule', 'ours, uncalibrated', 'ours, after 10 learn()'],
    rows,
  );

  // Speed: estimates against the exact WASM encoder on the same text.
  const counter = new HeuristicCounter();
  const five = Object.fromEntries(
    CLASSES.map((cls) => [cls, chunks(heldOutText(cls), 5000, 1)[0] as string]),
  ) as Record<CorpusClass, string>;
  const small = chunks(heldOutText('prose'), 200, 1)[0] as string;
  const message: Message = { role: 'user', content: small };
  for (const cls of CLASSES) counter.estimate(five[cls], ctx);
  await h.compare(
    'heuristic estimate speed (5,000-char chunk unless noted)',
    ['tiktoken o200k encode (prose)', () => exact(five.prose)],
    [
      ['HeuristicCounter.estimate (prose)', () => counter.estimate(five.prose, ctx)],
      ['HeuristicCounter.estimate (code)', () => counter.estimate(five.code, ctx)],
      ['HeuristicCounter.estimate (json)', () => counter.estimate(five.json, ctx)],
      ['HeuristicCounter.estimate (cjk)', () => counter.estimate(five.cjk, ctx)],
      ['classifyContent (prose)', () => classifyContent(five.prose)],
      ['chars/4 (prose)', () => Math.ceil(five.prose.length / 4)],
      ['HeuristicCounter.estimateMessage (200 chars)', () => counter.estimateMessage(message, ctx)],
      ['tiktoken o200k encode (200 chars)', () => exact(small)],
    ],
  );
  const big = heldOutText('code').slice(0, 800_000);
  await h.compare(
    'classifyContent on 800 KB of code (sampled) vs a full estimate',
    ['HeuristicCounter.estimate (800 KB)', () => counter.estimate(big, ctx)],
    [['classifyContent (800 KB)', () => classifyContent(big)]],
    { time: h.quick ? 100 : 300 },
  );

  // Linear cost on pathological inputs (long runs without spaces, one-line data, tag-like lines).
  const base64 = Buffer.from(heldOutText('code').slice(0, 400_000)).toString('base64');
  const cjkRun = heldOutText('cjk').replace(/[^\u3040-\u30ff\u4e00-\u9fff]/g, '');
  const oneLineJson = heldOutText('json').replace(/\s+/g, '');
  const inputs: [string, string][] = [
    ['CJK run (no spaces)', cjkRun],
    ['base64', base64],
    ['JSON on one line', oneLineJson],
    ['lines starting with "<"', '<a\n'.repeat(300_000)],
  ];
  const sizes = h.quick ? [10_000, 40_000] : [10_000, 40_000, 160_000];
  const linear: (string | number)[][] = [];
  for (const [name, source] of inputs) {
    const row: (string | number)[] = [name];
    for (const size of sizes) {
      let text = source;
      while (text.length < size) text += source;
      text = text.slice(0, size);
      counter.estimate(text, ctx);
      const reps = Math.max(3, Math.round(400_000 / size));
      const started = performance.now();
      for (let r = 0; r < reps; r++) counter.estimate(text, ctx);
      row.push(Number((((performance.now() - started) * 1000) / reps / (size / 1000)).toFixed(2)));
    }
    linear.push(row);
  }
  h.table(
    'HeuristicCounter.estimate: µs per 1,000 characters by input length (flat = linear)',
    ['input', ...sizes.map((n) => `${n / 1000}k chars`)],
    linear,
  );
  for (const e of encoders.values()) e.free();
}
