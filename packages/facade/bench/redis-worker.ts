/**
 * One process of the many-processes bench (redis-processes.bench.ts): a `createContextGuard` facade
 * on a shared Redis store. Arguments: the Redis url, this worker's index, how many conversations,
 * how many `prepare`s it keeps in flight. Protocol (one line each): `turn <t>` sends every
 * conversation's whole history of `t` turns, in an order of its own, and prints
 * `{ ms, compactions, declined }`; `exit` closes.
 */
import { createInterface } from 'node:readline';
import { RedisPersistence } from '../../../bench/stores.ts';
import { ContextDeclinedError, createContextGuard } from '../src/index.ts';
import { conversationHistory, conversationId, seededShuffle } from './redis-conversations.ts';

const [url = '', index = '0', count = '100', inFlight = '8'] = process.argv.slice(2);
const persistence = new RedisPersistence({ url, namespace: '' });
const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 4_000, persistence });

async function serveTurn(turn: number): Promise<{ ms: number[]; compactions: number; declined: number }> {
  const order = seededShuffle(
    Array.from({ length: Number(count) }, (_, i) => i),
    Number(index) * 1_000 + turn,
  );
  const ms: number[] = [];
  let compactions = 0;
  let declined = 0;
  const next = async (): Promise<void> => {
    for (let i = order.shift(); i !== undefined; i = order.shift()) {
      const started = performance.now();
      try {
        const result = await guard.prepare({
          conversationId: conversationId(i),
          messages: conversationHistory(i, turn),
        });
        compactions += result.actions.filter((action) => action.type === 'compaction').length;
      } catch (error) {
        if (!(error instanceof ContextDeclinedError)) throw error;
        declined++;
      }
      ms.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: Number(inFlight) }, next));
  return { ms, compactions, declined };
}

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const [command, argument] = line.trim().split(' ');
  if (command === 'turn') {
    process.stdout.write(`${JSON.stringify(await serveTurn(Number(argument)))}\n`);
  } else if (command === 'exit') {
    await guard.close();
    await persistence.close();
    process.exit(0);
  }
}
