/**
 * Child process of the create race: opens a FilePersistence on a shared folder, prints `ready`,
 * waits for a line on stdin, then calls `setIfAbsent` on every key at once and prints one JSON
 * line with the keys it won and how often the link step found the name taken (EEXIST).
 * In `forever` mode it instead walks the keys `killKey(0)`, `killKey(1)`, … (the same sequence in
 * every racer) until it is killed, printing `created <index>` for each key it created (SIGKILL test).
 * Usage: node racer.mjs <dir> <writer> <race|forever> <key>...
 */
import * as fs from 'node:fs/promises';
import { FilePersistence, type FileSystemAdapter } from '../../src/index.js';
import { killKey, raceValue } from './values.js';

const [dir, writer, mode, ...keys] = process.argv.slice(2);
if (!dir || !writer || (mode !== 'race' && mode !== 'forever')) {
  throw new Error('usage: racer <dir> <writer> <race|forever> <key>...');
}

let linkTaken = 0;
const counting: FileSystemAdapter = {
  mkdir: (path, options) => fs.mkdir(path, options),
  readdir: (path) => fs.readdir(path),
  readFile: (path, encoding) => fs.readFile(path, encoding),
  stat: (path) => fs.stat(path),
  open: (path, flags, fileMode) => fs.open(path, flags, fileMode),
  rename: (from, to) => fs.rename(from, to),
  async link(existing, newPath) {
    try {
      await fs.link(existing, newPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') linkTaken++;
      throw error;
    }
  },
  unlink: (path) => fs.unlink(path),
};

const store = new FilePersistence({ dir, fileSystem: counting });
await store.ready;
process.stdout.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));

if (mode === 'race') {
  const results = await Promise.all(keys.map((key) => store.setIfAbsent(key, raceValue(key, writer))));
  const won = keys.filter((_, index) => results[index]);
  process.stdout.write(`${JSON.stringify({ writer, won, linkTaken })}\n`);
  process.stdin.destroy();
} else {
  for (let index = 0; ; index++) {
    const key = killKey(index);
    if (await store.setIfAbsent(key, raceValue(key, writer))) process.stdout.write(`created ${index}\n`);
  }
}
