/**
 * Prints the share of characters `contentProfile` puts in each class, per class of the real-text
 * corpus (test/support/real-text-corpus.ts: documentation, sources, JSON and CJK text shipped in
 * node_modules), as the markdown table in the README.
 * Usage: pnpm -F @ctxguard/calibration exec node --conditions=@ctxguard/source --import tsx scripts/class-shares.ts
 */
import { type CorpusClass, classText } from '../../../test/support/real-text-corpus.ts';
import { CONTENT_CLASSES, contentProfile } from '../src/index.js';

const rows: [string, CorpusClass][] = [
  ['READMEs (fences removed)', 'prose'],
  ['sources (.ts, .js, .d.ts)', 'code'],
  ['package.json, JSON schemas', 'json'],
  ['CJK docs and messages', 'cjk'],
];

const percent = (part: number, whole: number): string =>
  part === 0 ? '0' : part * 1000 < whole ? '<0.1%' : `${((100 * part) / whole).toFixed(1)}%`;

process.stdout.write(`| corpus | characters | ${CONTENT_CLASSES.join(' | ')} |\n`);
process.stdout.write(`| --- | ---: |${CONTENT_CLASSES.map(() => ' ---: |').join('')}\n`);
for (const [label, cls] of rows) {
  const text = classText(cls);
  const profile = contentProfile(text);
  const cells = CONTENT_CLASSES.map((c) => percent(profile[c], text.length));
  process.stdout.write(`| ${label} | ${text.length.toLocaleString('en-US')} | ${cells.join(' | ')} |\n`);
}
