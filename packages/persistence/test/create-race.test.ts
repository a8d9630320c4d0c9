/**
 * `FilePersistence.setIfAbsent` across real processes: child processes open the same folder and
 * race to create the same keys (plain and hashed file names) at one signal. Exactly one process
 * may win each key, the stored value must be the winner's, every file must read back whole and no
 * temp file may be left. A second test SIGKILLs racers mid-run and checks that every key a racer
 * reported as created holds its value, that no file is torn and that reopening removes the temp files.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundleWorker,
  startTogether,
  startWorker,
  type Worker,
  waitFor,
} from '../../../test/support/child-worker.ts';
import { seededRandom, seedNote, withSeed } from '../../../test/support/seeded-random.ts';
import { FilePersistence } from '../src/index.js';
import { killKey, raceValue } from './race/values.js';

const here = dirname(fileURLToPath(import.meta.url));
const processes = 6;
const rounds = 4;
const keysPerRound = 24;
const killRounds = 8;
const killRacers = 3;

let root = '';
let racerScript = '';

/** Decides how many keys racers create before each SIGKILL; a failure names the seed that replays the choices. */
const random = seededRandom();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxguard-create-race-'));
  racerScript = await bundleWorker(build, join(here, 'race/racer.ts'), join(root, 'racer.mjs'));
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function startRacer(dir: string, writer: string, mode: 'race' | 'forever', keys: string[] = []): Worker {
  return startWorker({ script: racerScript, args: [dir, writer, mode, ...keys], name: writer });
}

function scratchNames(names: string[]): string[] {
  return names.filter((name) => name.startsWith('.ctxguard-'));
}

function roundKeys(round: number): string[] {
  return Array.from({ length: keysPerRound }, (_, index) => {
    if (index % 4 === 1) return `round${round}:long:${'\u00e9'.repeat(90)}:${index}`;
    if (index % 4 === 2) return `round${round}/session:${index}/history`;
    return `round${round}:${index}`;
  });
}

describe('FilePersistence.setIfAbsent across processes', () => {
  it(`gives each key exactly one winner among ${processes} processes racing for it`, async () => {
    const dir = join(root, 'race');
    await mkdir(dir, { recursive: true });
    const allKeys: string[] = [];
    let linkTaken = 0;
    let readsDuringRace = 0;
    for (let round = 0; round < rounds; round++) {
      const keys = roundKeys(round);
      allKeys.push(...keys);
      const racers = Array.from({ length: processes }, (_, index) =>
        startRacer(dir, `r${round}p${index}`, 'race', keys),
      );
      await startTogether(racers);
      // Meanwhile this process reads the keys: each read sees nothing or a whole value, never a torn file.
      const watcher = new FilePersistence({ dir });
      let running = true;
      const exited = Promise.all(racers.map((racer) => racer.exited)).finally(() => {
        running = false;
      });
      while (running) {
        for (const key of keys) {
          const value = await watcher.get<{ writer: string }>(key);
          if (value === null) continue;
          expect(value).toEqual(raceValue(key, value.writer));
          readsDuringRace++;
        }
      }
      const results = await exited;
      for (const [index, result] of results.entries())
        expect(result, racers[index]!.stderr()).toEqual({ code: 0, signal: null });
      const reports = racers.map(
        (racer) => JSON.parse(racer.lines.at(-1)!) as { writer: string; won: string[]; linkTaken: number },
      );
      linkTaken += reports.reduce((sum, report) => sum + report.linkTaken, 0);

      // Before any store reopens the folder (which would clean up): the racers left no temp file.
      expect(scratchNames(await readdir(dir)), `temp files after round ${round}`).toEqual([]);
      const reader = new FilePersistence({ dir });
      for (const key of keys) {
        const winners = reports.filter((report) => report.won.includes(key)).map((report) => report.writer);
        expect(winners, `winners of ${JSON.stringify(key.slice(0, 30))}`).toHaveLength(1);
        expect(await reader.get(key)).toEqual(raceValue(key, winners[0]!));
      }
    }
    const reader = new FilePersistence({ dir });
    expect(await reader.list()).toEqual([...allKeys].sort());
    const names = await readdir(dir);
    expect(names).toHaveLength(allKeys.length);
    for (const name of names) {
      const envelope = JSON.parse(await readFile(join(dir, name), 'utf8')) as { key: string; value: unknown };
      expect(envelope.value).toEqual(raceValue(envelope.key, (envelope.value as { writer: string }).writer));
    }
    console.info(
      `create race: ${rounds} rounds x ${processes} processes x ${keysPerRound} keys; ${linkTaken} creates found the name taken at the link step; ${readsDuringRace} whole values read while the racers ran`,
    );
    // The processes really raced at the atomic step, not only at the fast "exists already" check.
    expect(linkTaken).toBeGreaterThan(0);
  }, 120_000);

  it(
    'keeps every created key and never shows a torn entry when racers are SIGKILLed mid-run',
    () =>
      withSeed(random, async () => {
        const dir = join(root, 'kill');
        await mkdir(dir, { recursive: true });
        const creator = new Map<number, string>();
        let roundsWithTempFiles = 0;
        for (let round = 0; round < killRounds; round++) {
          const racers = Array.from({ length: killRacers }, (_, index) =>
            startRacer(dir, `k${round}p${index}`, 'forever'),
          );
          await startTogether(racers);
          const target = creator.size + random.int(4, 14);
          const created = () => racers.reduce((sum, racer) => sum + racer.lines.length, 0) + creator.size;
          await waitFor(() => created() >= target, racers, `${target} created keys`);
          const exits = await Promise.all(racers.map((racer) => racer.kill()));
          for (const [index, exit] of exits.entries())
            expect(exit.signal, racers[index]!.stderr()).toBe('SIGKILL');

          for (const racer of racers) {
            for (const line of racer.lines) {
              const index = Number(line.split(' ')[1]);
              expect(creator.get(index), `key ${index} reported created twice`).toBeUndefined();
              creator.set(index, racer.name);
            }
          }
          if (scratchNames(await readdir(dir)).length > 0) roundsWithTempFiles++;

          const reader = new FilePersistence({ dir });
          await reader.ready;
          expect(scratchNames(await readdir(dir)), 'temp files after a store reopened the folder').toEqual(
            [],
          );
          for (const [index, writer] of creator)
            expect(await reader.get(killKey(index))).toEqual(raceValue(killKey(index), writer));
          for (const key of await reader.list()) {
            const value = await reader.get<{ writer: string }>(key);
            expect(value, key).toEqual(raceValue(key, value!.writer));
          }
        }
        console.info(
          `create kill test: ${killRounds} rounds of ${killRacers} racers, ${creator.size} keys reported created, ${roundsWithTempFiles} rounds left temp files`,
        );
        expect(creator.size).toBeGreaterThan(killRounds * 4);
        expect(
          roundsWithTempFiles,
          `kills that landed inside a create (${seedNote(random)})`,
        ).toBeGreaterThan(0);
      }),
    120_000,
  );
});
