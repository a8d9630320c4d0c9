import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { readQuickStart, runQuickStart } from '../../../test/support/quick-start.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

it('the README quick start has at most 15 lines, runs as written and prints what its comments say', async () => {
  const code = (await readQuickStart(packageDir)) ?? '';
  expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(15);
  const stdout = await runQuickStart(packageDir, code);
  const squeezed = stdout.replace(/\s+/g, '');
  expect(squeezed.startsWith('code{')).toBe(true);
  // contentProfile: characters per class, summing to the text's length.
  const profile = /^code(\{[^}]*\})/.exec(squeezed)?.[1] ?? '';
  const counts = [...profile.matchAll(/:(\d+)/g)].map((m) => Number(m[1]));
  expect(counts).toHaveLength(5);
  const profiled = /contentProfile\('(.*)'\)\)/.exec(code)?.[1] ?? '';
  expect(counts.reduce((a, b) => a + b, 0)).toBe(profiled.replaceAll(String.raw`\n`, '\n').length);
  // The calibration after two updates: 0.2 × 3.0 + 0.8 × 3.4, two samples, confidence 0.2.
  const printed = /charsPerToken:(3\.32\d*),samples:2,confidence:0\.2,/.exec(squeezed)?.[1];
  expect(printed).toBeDefined();
  expect(code).toContain(
    `// { charsPerToken: ${printed} (0.2 × 3.0 + 0.8 × 3.4), samples: 2, confidence: 0.2`,
  );
}, 60_000);
