/**
 * Crash test: a real child process writes large values through FilePersistence and is
 * killed with SIGKILL. The child appends a marker line (synchronously, to a side file that
 * survives the kill) before each `set`, before each file-system step and after each `set`,
 * so after the kill the parent knows exactly where it landed: a kill counts as mid-write
 * when the last marker is a file-system step of a `set` that never reported done. Every key
 * must then read back as its previous value or the one in flight (never torn), and temp
 * files must never be listed. A control run with a naive in-place writer shows the same
 * harness does catch torn files.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker, startWorker } from '../../../test/support/child-worker.ts';
import { type SeededRandom, seededRandom, seedNote, withSeed } from '../../../test/support/seeded-random.ts';
import { CorruptEntryError, FilePersistence } from '../src/index.js';
import { crashKeyOf, crashKeys, crashValue } from './crash/values.js';

const here = dirname(fileURLToPath(import.meta.url));
const parallelWorkers = 4;
const requiredMidWriteKills = 200;
/** Of those, kills before the rename: the window where a non-atomic writer leaves a torn file. */
const requiredBeforeRenameKills = 100;
const maxKills = 500;

let root = '';
let writerScript = '';

/** Decides how long each writer runs before its SIGKILL; a failure names the seed that replays the choices. */
const random = seededRandom();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxguard-crash-'));
  writerScript = await bundleWorker(build, join(here, 'crash/writer.ts'), join(root, 'writer.mjs'));
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Which values a key may hold after a kill whose last marker was `step` of the in-flight write. */
type Landing = 'before-io' | 'before-rename' | 'at-rename' | 'after-rename' | 'between-writes';

function landingOf(step: string): Landing {
  if (step === 'open' || step === 'write' || step === 'fsync' || step === 'link') return 'before-rename';
  if (step === 'rename') return 'at-rename';
  return 'after-rename';
}

interface KillReport {
  midWrite: boolean;
  step: string;
  inFlight: number | undefined;
  done: number[];
  lastStart: number | undefined;
}

function readMarkers(text: string): KillReport {
  const lines = text.split('\n').filter((line) => line.length > 0);
  const done: number[] = [];
  let lastStart: number | undefined;
  for (const line of lines) {
    const [kind, gen] = line.split(' ');
    if (kind === 'start') lastStart = Number(gen);
    if (kind === 'done') done.push(Number(gen));
  }
  const inFlight = lastStart !== undefined && !done.includes(lastStart) ? lastStart : undefined;
  const last = lines.at(-1)?.split(' ') ?? [];
  const midWrite = inFlight !== undefined && last[0] === 'step' && Number(last[1]) === inFlight;
  const step = midWrite ? last[2]! : last[0] === 'start' ? 'before-io' : 'between-writes';
  return { midWrite, step, inFlight, done, lastStart };
}

/** Starts the writer, waits for it to open the store, lets it write for 0–44 ms (seeded) and SIGKILLs it. */
async function killMidRun(
  dir: string,
  markerFile: string,
  start: number,
  mode: 'atomic' | 'naive',
  delays: SeededRandom,
): Promise<string> {
  await writeFile(markerFile, '');
  const writer = startWorker({
    script: writerScript,
    args: [dir, markerFile, String(start), mode],
    name: 'writer',
  });
  await writer.ready;
  await new Promise((resolve) => setTimeout(resolve, delays.int(0, 44)));
  const { signal } = await writer.kill();
  expect(signal, `${writer.stderr()} (${seedNote(delays)})`).toBe('SIGKILL');
  return readFile(markerFile, 'utf8');
}

function scratchNames(names: string[]): string[] {
  return names.filter((name) => name.startsWith('.ctxguard-'));
}

interface Totals {
  kills: number;
  midWrite: number;
  beforeRename: number;
  byStep: Record<string, number>;
  leftoverScratch: number;
  sawNewValue: number;
  keptOldValue: number;
}

async function atomicWorker(index: number, totals: Totals): Promise<void> {
  const dir = join(root, `atomic-${index}`);
  const markerFile = join(root, `atomic-${index}.markers`);
  await mkdir(dir, { recursive: true });
  const observer = new FilePersistence({ dir });
  await observer.ready;
  const committed = new Map<string, number>();
  const delays = random.fork(index);
  let next = index * 1_000_000;

  while (
    (totals.midWrite < requiredMidWriteKills || totals.beforeRename < requiredBeforeRenameKills) &&
    totals.kills < maxKills
  ) {
    const report = readMarkers(await killMidRun(dir, markerFile, next, 'atomic', delays));
    totals.kills++;
    if (report.midWrite) totals.midWrite++;
    if (report.midWrite && landingOf(report.step) === 'before-rename') totals.beforeRename++;
    totals.byStep[report.step] = (totals.byStep[report.step] ?? 0) + 1;
    for (const gen of report.done) committed.set(crashKeyOf(gen), gen);

    const scratch = scratchNames(await readdir(dir));
    if (scratch.length > 0) totals.leftoverScratch++;
    const inFlightKey = report.inFlight === undefined ? undefined : crashKeyOf(report.inFlight);
    const landing: Landing = report.midWrite
      ? landingOf(report.step)
      : report.inFlight !== undefined
        ? 'before-io'
        : 'between-writes';
    const present: string[] = [];
    for (const key of crashKeys) {
      const old = committed.get(key);
      const allowed: (number | undefined)[] = [old];
      if (key === inFlightKey) {
        if (landing === 'at-rename') allowed.push(report.inFlight);
        if (landing === 'after-rename') allowed.splice(0, 1, report.inFlight);
      }
      let value: ReturnType<typeof crashValue> | null;
      try {
        value = await observer.get<ReturnType<typeof crashValue>>(key);
      } catch (error) {
        throw new Error(
          `kill #${totals.kills} (${report.step}) left ${JSON.stringify(key.slice(0, 20))} unreadable: ${String(error)}`,
        );
      }
      const gen = value === null ? undefined : value.gen;
      expect(
        allowed,
        `kill at ${report.step}: ${key.slice(0, 20)} holds generation ${gen} (${seedNote(random)})`,
      ).toContain(gen);
      if (value !== null) {
        const expected = crashValue(key, value.gen);
        expect(
          value.key === expected.key && value.body === expected.body,
          `generation ${gen} of ${key}`,
        ).toBe(true);
        present.push(key);
        committed.set(key, value.gen);
      }
      if (key === inFlightKey) {
        if (gen === report.inFlight) totals.sawNewValue++;
        else totals.keptOldValue++;
      }
    }
    expect(await observer.list(), 'list() with scratch files present').toEqual(present.sort());

    await new FilePersistence({ dir }).ready;
    expect(scratchNames(await readdir(dir)), 'scratch files left after a store opened').toEqual([]);
    next = (report.lastStart ?? next - 1) + 1;
  }
}

describe('FilePersistence under SIGKILL', () => {
  it(
    `keeps every key old-or-new across at least ${requiredMidWriteKills} kills that land mid-write`,
    () =>
      withSeed(random, async () => {
        const totals: Totals = {
          kills: 0,
          midWrite: 0,
          beforeRename: 0,
          byStep: {},
          leftoverScratch: 0,
          sawNewValue: 0,
          keptOldValue: 0,
        };
        await Promise.all(Array.from({ length: parallelWorkers }, (_, index) => atomicWorker(index, totals)));
        console.info(`crash test (${seedNote(random)}): ${JSON.stringify(totals)}`);
        expect(totals.midWrite).toBeGreaterThanOrEqual(requiredMidWriteKills);
        expect(
          totals.beforeRename,
          'kills between opening the temp file and the rename',
        ).toBeGreaterThanOrEqual(requiredBeforeRenameKills);
        const stepsHit = Object.keys(totals.byStep).filter(
          (step) => step !== 'before-io' && step !== 'between-writes',
        );
        expect(stepsHit.length, JSON.stringify(totals.byStep)).toBeGreaterThanOrEqual(3);
        expect(totals.byStep['write'] ?? 0, 'kills during the data write').toBeGreaterThan(0);
        expect(totals.leftoverScratch, 'kills that left a temp file behind').toBeGreaterThan(0);
        expect(totals.keptOldValue, 'kills that kept the old value').toBeGreaterThan(0);
      }),
    240_000,
  );

  it(
    'detects torn files when the same harness runs a naive in-place writer (control)',
    () =>
      withSeed(random, async () => {
        const dir = join(root, 'naive');
        const markerFile = join(root, 'naive.markers');
        const delays = random.fork(parallelWorkers);
        let torn = 0;
        let kills = 0;
        let next = 0;
        while (torn < 3 && kills < 80) {
          await rm(dir, { recursive: true, force: true });
          await mkdir(dir, { recursive: true });
          const report = readMarkers(await killMidRun(dir, markerFile, next, 'naive', delays));
          kills++;
          next = (report.lastStart ?? next) + 1;
          if (!report.midWrite) continue;
          const observer = new FilePersistence({ dir });
          for (const key of crashKeys) {
            const value = await observer
              .get<ReturnType<typeof crashValue>>(key)
              .catch((error: unknown) => error);
            if (value instanceof CorruptEntryError) torn++;
          }
        }
        expect(torn, `torn files seen in ${kills} naive kills (${seedNote(random)})`).toBeGreaterThanOrEqual(
          3,
        );
      }),
    120_000,
  );
});
