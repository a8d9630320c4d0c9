import { MultiBar, Presets, type SingleBar } from 'cli-progress';

/** Progress of the replays: one bar per strategy, or nothing when off. */
export interface ReplayProgress {
  /** A bar for one strategy's replay of `total` requests. */
  start(strategy: string, total: number): { update(done: number, usage: number, compactions: number): void };
  /** Prints a line above the bars (or plainly when there are none). */
  log(line: string): void;
  stop(): void;
}

/** A progress display on stderr with cli-progress; off (lines only) when `enabled` is false. */
export function createProgress(enabled: boolean, print: (line: string) => void): ReplayProgress {
  if (!enabled) {
    return { start: () => ({ update() {} }), log: print, stop() {} };
  }
  const bars = new MultiBar(
    {
      format: ' {strategy} [{bar}] {value}/{total} | usage {usage} | {compactions} compactions',
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      barsize: 24,
      stream: process.stderr,
    },
    Presets.shades_classic,
  );
  let width = 0;
  const all: SingleBar[] = [];
  return {
    start(strategy, total) {
      width = Math.max(width, strategy.length);
      const bar = bars.create(total, 0, { strategy: strategy.padEnd(12), usage: '  0%', compactions: 0 });
      all.push(bar);
      return {
        update(done, usage, compactions) {
          bar.update(done, { usage: `${String(Math.round(usage * 100)).padStart(3)}%`, compactions });
        },
      };
    },
    log(line) {
      bars.log(`${line}\n`);
    },
    stop() {
      bars.stop();
    },
  };
}
