// The strategy example of @ctxguard/core's README, as written there, passes the kit authors run.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, test } from 'vitest';
import { describeStrategy } from '../src/testing.js';

const readme = readFileSync(new URL('../../core/README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## Writing your own strategy'));
const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
const scratch = new URL('./.tmp/', import.meta.url);
const file = new URL(`core-readme-strategy-${process.pid}.ts`, scratch);
mkdirSync(scratch, { recursive: true });
writeFileSync(file, code);
const { dropHalf } = await import(file.href);
afterAll(() => rmSync(file, { force: true }));

describeStrategy(test, "the core README's dropHalf", () => dropHalf);
