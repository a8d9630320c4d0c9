import { describe, expect, it } from 'vitest';
import { summarizeExtractively } from '../rewrites/extractive-summary.js';
import { stripBase64 } from '../rewrites/summarize-messages.js';
import { truncateToolOutput } from '../rewrites/tool-output-limits.js';
import { withoutCompactionNotes } from './compaction-notes.js';
import { extractFactsFromText } from './fact-extractors.js';
import { renderTruncationMarker } from './markers.js';
import { renderSummary } from './summary-format.js';

const extract = (text: string) =>
  extractFactsFromText(text, { maxFacts: 400, maxValueLength: 300 }).map((fact) => fact.value);

describe('compaction notes', () => {
  it("keeps the figures of ctxguard's own notes out of extracted facts, the conversation's own figures in", async () => {
    const output = Array.from({ length: 400 }, (_, i) => `line ${i}: built dist/chunk-${i}.js`).join('\n');
    const cut = truncateToolOutput(output, { maxBytes: 600, maxLines: 2000 });
    const saved = await truncateToolOutput(output, {
      maxBytes: 600,
      maxLines: 2000,
      save: { dir: '/tmp/outputs', writer: () => undefined, fileName: 'build.txt' },
    });
    const notes = [
      renderSummary({ text: 'The build of packages/core took 42 ms.', messageCount: 23 }),
      renderTruncationMarker({ hiddenCount: 6 }),
      cut.content,
      saved.content,
      stripBase64(`payload ${'QUJD'.repeat(200)}`),
      summarizeExtractively('[user]: Fix src/a.ts, 3 tests fail.\n[assistant]: Done.', { maxLength: 400 }),
    ].join('\n');
    const values = extract(notes);
    // The notes' figures (message counts, cut sizes, omitted lines and characters) are not facts…
    for (const figure of ['23 earlier messages', '23 messages', '6 messages', '800 characters'])
      expect(values.some((value) => value.includes(figure))).toBe(false);
    expect(values.some((value) => / bytes$/.test(value))).toBe(false);
    expect(values.some((value) => /lines omitted/.test(value))).toBe(false);
    // …what the conversation said still is, and so is where a full output was saved.
    expect(values).toEqual(expect.arrayContaining(['packages/core', '42 ms', 'src/a.ts', '3 tests']));
    expect(values).toContain('/tmp/outputs/build.txt');
  });

  it('leaves text without notes as it is', () => {
    const text = 'Summary of the plan: 12 messages were sent, 8353 bytes written to out.log.';
    expect(withoutCompactionNotes(text)).toBe(text);
  });
});
