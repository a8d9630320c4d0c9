/**
 * Seeded randomness for tests whose timing choices vary from run to run (when to SIGKILL a
 * worker): the seed comes from `CTXGUARD_SEED` or is drawn at random, and a failure names it,
 * so `CTXGUARD_SEED=<seed> pnpm vitest run <file>` replays the same choices.
 */

/** A source of numbers in [0, 1) and the seed that produced it. */
export interface SeededRandom {
  readonly seed: number;
  /** The next number in [0, 1). */
  next(): number;
  /** The next integer in [min, max], both included. */
  int(min: number, max: number): number;
  /**
   * An independent stream for one of several concurrent users (parallel workers draw in an order
   * that timing decides); it reports the same `seed`, which replays every stream.
   */
  fork(stream: number): SeededRandom;
}

/** The seed of this run: `CTXGUARD_SEED` when set (an unsigned 32-bit integer), else a random one. */
export function testSeed(): number {
  const fromEnv = process.env['CTXGUARD_SEED'];
  if (fromEnv !== undefined && fromEnv !== '') {
    const seed = Number(fromEnv);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      throw new Error(`CTXGUARD_SEED must be an unsigned 32-bit integer, got ${JSON.stringify(fromEnv)}`);
    return seed;
  }
  return Math.floor(Math.random() * 0x100000000);
}

/** mulberry32 (Tommy Ettinger's 32-bit generator): small, fast, and good enough for test choices. */
export function seededRandom(seed: number = testSeed()): SeededRandom {
  return generator(seed, seed);
}

function generator(seed: number, start: number): SeededRandom {
  let state = start >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    fork: (stream) => generator(seed, (start + Math.imul(stream + 1, 0x9e3779b9)) >>> 0),
  };
}

/** How to replay a run: appended to assertion messages. */
export function seedNote(random: SeededRandom): string {
  return `seed ${random.seed}; replay with CTXGUARD_SEED=${random.seed}`;
}

/**
 * Runs `body`; if it throws, the error's message gains {@link seedNote}, so the failure report
 * tells how to replay the run even for assertions that carry no message of their own.
 */
export async function withSeed<T>(random: SeededRandom, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof Error && !error.message.includes(`CTXGUARD_SEED=${random.seed}`))
      error.message = `${error.message} (${seedNote(random)})`;
    throw error;
  }
}
