/**
 * Child process of the crash test: writes generations `start, start+1, …` forever and
 * appends a marker line to a side file (synchronously, so it survives SIGKILL) before each
 * `set` and before every file-system step, and after each `set` completes.
 * Usage: node writer.mjs <dir> <marker-file> <start-gen> <atomic|naive>
 */
import { openSync, writeSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { type FileHandleLike, FilePersistence, type FileSystemAdapter } from '../../src/index.js';
import { crashKeyOf, crashValue } from './values.js';

const [dir, markerFile, startText, mode] = process.argv.slice(2);
if (!dir || !markerFile || !startText || (mode !== 'atomic' && mode !== 'naive')) {
  throw new Error('usage: writer <dir> <marker-file> <start-gen> <atomic|naive>');
}
const markers = openSync(markerFile, 'a');
let gen = Number(startText);
const mark = (line: string): void => {
  writeSync(markers, `${line}\n`);
};

const instrumented: FileSystemAdapter = {
  mkdir: (path, options) => fs.mkdir(path, options),
  readdir: (path) => fs.readdir(path),
  readFile: (path, encoding) => fs.readFile(path, encoding),
  stat: (path) => fs.stat(path),
  async open(path, flags, mode) {
    const directory = flags === 'r';
    mark(`step ${gen} ${directory ? 'dir-open' : 'open'}`);
    const handle = await fs.open(path, flags, mode);
    const wrapped: FileHandleLike = {
      writeFile: (data, encoding) => {
        mark(`step ${gen} write`);
        return handle.writeFile(data, encoding);
      },
      sync: () => {
        mark(`step ${gen} ${directory ? 'dir-fsync' : 'fsync'}`);
        return handle.sync();
      },
      close: () => handle.close(),
    };
    return wrapped;
  },
  link(existing, newPath) {
    mark(`step ${gen} link`);
    return fs.link(existing, newPath);
  },
  rename(from, to) {
    mark(`step ${gen} rename`);
    return fs.rename(from, to);
  },
  unlink: (path) => fs.unlink(path),
};

const store = new FilePersistence({ dir, fileSystem: instrumented });
await store.ready;
process.stdout.write('ready\n');
for (;;) {
  const key = crashKeyOf(gen);
  const value = crashValue(key, gen);
  mark(`start ${gen}`);
  if (mode === 'atomic') {
    await store.set(key, value);
  } else {
    const file = await store.fileOf(key);
    mark(`step ${gen} write`);
    await fs.writeFile(file, JSON.stringify({ ctxguard: 'persistence', version: 1, key, value }));
  }
  mark(`done ${gen}`);
  gen++;
}
