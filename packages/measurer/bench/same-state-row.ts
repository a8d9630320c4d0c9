/**
 * One row of the measurer's same-state benchmark, run in a process of its own (see
 * measurer.bench.ts): every call of `onMessageResolve` through `ContextMeasurer` and `ContextGuard`
 * with a message never seen before, against counting such a message alone in the same state: right
 * before or right after the call, in turn, after the same rebuild of the list when the row rebuilds
 * it (a list of 10,000 fresh objects leaves the caches cold for whatever runs next, the bare count
 * included).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Message } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ModelCatalog } from '@ctxguard/models';
import { HybridTokenCounter } from '@ctxguard/token-counter';
import {
  agentConversation as conversation,
  hugeWindowModel,
  newUserMessage as newMessage,
  rebuildMessage as rebuild,
} from '../../../bench/agent-conversation.ts';
import { guardedMeasurer } from '../../../bench/guarded-measurer.ts';
import { median } from '../../../bench/harness.ts';

/** The same window counted by the calibrated heuristic (what a model without a local tokenizer gets). */
export const heuristicModel = {
  ...hugeWindowModel,
  model: 'huge-heuristic',
  tokenizer: { strategy: 'heuristic' as const },
};
const models = [hugeWindowModel, heuristicModel];

/** How the app prepares each call of a row. */
export interface RowVariant {
  /** Every message object rebuilt from the same strings before each call (an SDK middleware). */
  rebuiltEachCall: boolean;
  /** The provider's usage of the previous request learned before each call (an agent loop). */
  learn: boolean;
  /** Counted with the model's tiktoken encoding, or by the calibrated heuristic. */
  counting: 'tiktoken' | 'heuristic';
  /** Timed early in the process: after 12 untimed repetitions instead of {@link STEADY_WARM_REPETITIONS}. */
  early?: boolean;
}

/**
 * Untimed repetitions before a row is timed. 30, not 12: V8 compiles the call's larger functions
 * (the measurer's estimate, the tally's update, the guard's quiet-call check) with TurboFan only
 * after 850–1,750 calls here (`--trace-opt`), and the call settles a quarter to a third faster from
 * then on; after 12 repetitions (720 calls) part of it still ran unoptimized, which is not how a
 * long-running app has it compiled. An `early` row keeps 12, for a process's first ~1,000 calls.
 */
const STEADY_WARM_REPETITIONS = 30;
const EARLY_WARM_REPETITIONS = 12;

/** Per timed repetition: µs per call and per bare count, as medians and as means. */
export interface RowFigures {
  medians: { call: number; bare: number }[];
  means: { call: number; bare: number }[];
}

const ROW_ENV = 'CTXGUARD_MEASURER_BENCH_ROW';

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * Measures `variant` in a new Node process (the same loader and conditions), so no row inherits
 * another's heap or compiled code: which row ran before changed a row's ratio from 2.8× to 6.8× here.
 */
export function measureRowApart(variant: RowVariant, quick: boolean): Promise<RowFigures> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, [ROW_ENV]: JSON.stringify({ variant, quick }) },
      execArgv: ['--import', 'tsx'],
    });
    let figures: RowFigures | undefined;
    child.on('message', (message) => {
      figures = message as RowFigures;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      figures
        ? resolve(figures)
        : reject(new Error(`the ${JSON.stringify(variant)} row exited with ${code}`)),
    );
  });
}

/**
 * The row itself. Untimed repetitions first: they compile the hot code the way a long-running app
 * has it compiled (the first call of a repetition counts the whole history, later ones one message).
 */
export async function measureRow(variant: RowVariant, quick: boolean): Promise<RowFigures> {
  const size = 10_000;
  const growth = quick ? 20 : 60;
  const warmRepetitions = quick ? 3 : variant.early ? EARLY_WARM_REPETITIONS : STEADY_WARM_REPETITIONS;
  const timedRepetitions = quick ? 3 : 6;
  const model = variant.counting === 'heuristic' ? heuristicModel : hugeWindowModel;
  const modelCtx = { provider: model.provider, model: model.model };
  const truthCtx = { provider: hugeWindowModel.provider, model: hugeWindowModel.model };
  const base = conversation(size);
  const counter = new HybridTokenCounter({ catalog: new ModelCatalog({ models }) });
  await counter.warm(truthCtx);
  await counter.warm(modelCtx);
  let baseTruth = 0;
  for (const message of base) baseTruth += counter.estimateMessage(message, truthCtx);
  const figures: RowFigures = { medians: [], means: [] };
  for (let repetition = 0; repetition < warmRepetitions + timedRepetitions; repetition++) {
    const { hooks, measurer, prepare, destroy } = guardedMeasurer(new ModelCatalog({ models }));
    // The app's stored conversation: the guard keeps its state in its metadata and the measurer its
    // tally by it; it holds exactly the messages this repetition sends (appended untimed).
    const history = new InMemoryConversationHistory();
    for (const message of base) history.append(message);
    const unseenMessages = Array.from({ length: growth }, (_, i) => newMessage(i + 1_000 * (repetition + 1)));
    const alone = Array.from({ length: growth }, (_, i) => newMessage(i + 1_000_000 + 1_000 * repetition));
    const lists: Message[][] = [];
    let grown = base.slice();
    for (const message of unseenMessages) {
      grown = [...grown, message];
      lists.push(grown);
    }
    const request = (messages: Message[]) => ({
      ...modelCtx,
      messages,
      history,
    });
    // The first call counts the history once; warmCache then waits for the model's encoder, whose
    // arrival changes the counts, so the next call recounts once more.
    await prepare(request(base));
    await measurer.warmCache();
    await prepare(request(base));
    const calls: number[] = [];
    const counts: number[] = [];
    let previous = base;
    // The provider's count: the exact o200k count plus 10% (a denser tokenizer), fixed by the content.
    // Counted before the loop: a count of a similar message just before a timed one would warm it.
    let truth = baseTruth;
    const truths = lists.map((list) => {
      const before = truth;
      truth += counter.estimateMessage(list.at(-1) as Message, truthCtx);
      return before;
    });
    // The bare count in the same state as a call: the same list prepared the same way just before it.
    const bareCount = (i: number, list: Message[]) => {
      const again = variant.rebuiltEachCall ? list.map(rebuild) : list;
      const started = performance.now();
      counter.estimateMessage(alone[i] as Message, modelCtx);
      const took = performance.now() - started;
      if (again.length !== list.length) throw new Error('unreachable');
      return took;
    };
    for (const [i, list] of lists.entries()) {
      history.append(list.at(-1) as Message);
      if (variant.learn) {
        const usage = { inputTokens: Math.round((truths[i] as number) * 1.1), outputTokens: 20 };
        await hooks.emit('onCompletion', { ...modelCtx, messages: previous, usage });
      }
      // Which of the two runs first after this preparation alternates: the first finds the caches
      // the preparation left, the second those the first warmed (a count warms the encoder's tables
      // for the next one), so neither is favoured.
      const bareFirst = i % 2 === 1;
      if (bareFirst) counts.push(bareCount(i, list));
      // Rebuilt just before its call (untimed), as a middleware does, so only one copy is alive.
      const messages = variant.rebuiltEachCall ? list.map(rebuild) : list;
      // The app's event is made before the clock starts: on Node 20 an object spread with added
      // fields (`{ ...ctx, messages }`) alone costs 2–3 µs, the app's cost, not the measurer's.
      const event = request(messages);
      const started = performance.now();
      await prepare(event);
      calls.push(performance.now() - started);
      previous = messages;
      if (!bareFirst) counts.push(bareCount(i, list));
    }
    destroy();
    if (repetition < warmRepetitions) continue;
    // The mean per call (GC pauses and the machine's preemptions included) and the median (neither).
    figures.means.push({ call: mean(calls) * 1000, bare: mean(counts) * 1000 });
    figures.medians.push({ call: median(calls) * 1000, bare: median(counts) * 1000 });
  }
  return figures;
}

const row = process.env[ROW_ENV];
if (row !== undefined && process.send) {
  const { variant, quick } = JSON.parse(row) as { variant: RowVariant; quick: boolean };
  process.send(await measureRow(variant, quick), () => process.exit(0));
}
