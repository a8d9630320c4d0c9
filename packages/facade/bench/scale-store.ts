/**
 * Child process of scale.bench.ts: runs the scale conversation on one store and prints what it
 * measured as JSON. Arguments: the store (memory, file or Redis), the turns, the turns after which
 * to sample the heap.
 */
import { type BenchStore, openFileStore, openMemoryStore, openRedisStore } from '../../../bench/stores.ts';
import { runConversation } from './scale-conversation.ts';

const opening: Record<BenchStore['name'], () => BenchStore | Promise<BenchStore>> = {
  memory: openMemoryStore,
  file: openFileStore,
  Redis: openRedisStore,
};

const [name, turns, ...heapAt] = process.argv.slice(2);
const open = opening[name as BenchStore['name']];
if (open === undefined) throw new Error(`unknown store ${name}: memory, file or Redis`);
const store = await open();
try {
  const run = await runConversation(store, Number(turns), heapAt.map(Number));
  process.stdout.write(JSON.stringify(run));
} finally {
  await store.close();
}
