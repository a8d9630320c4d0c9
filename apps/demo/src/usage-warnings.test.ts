import { expect, it } from 'vitest';
import { usageWarning, warningText } from './usage-warnings.js';

it('warns once per upward crossing, at the highest level reached', () => {
  expect(usageWarning(1, 0.5, 5_900, 10_000)).toBeUndefined();
  expect(usageWarning(2, 0.5, 6_500, 10_000)).toMatchObject({
    turn: 2,
    level: 0.6,
    text: 'Context: 65% used',
  });
  expect(usageWarning(3, 0.65, 7_000, 10_000)).toBeUndefined(); // still above 60%, below 80%
  expect(usageWarning(4, 0.55, 8_500, 10_000)).toMatchObject({ level: 0.8 }); // 55% → 85%: the 80% warning only
  expect(usageWarning(5, 0.85, 9_000, 10_000)).toBeUndefined();
  expect(usageWarning(6, 0.4, 8_000, 10_000)?.level).toBe(0.8); // exactly 80% counts
});

it('says how full the context is in the words of reference/001', () => {
  expect(warningText(0.8, 166_000, 200_000)).toBe(
    'Context usage: 83% of the input budget (166,000 / 200,000 tokens). Auto-compaction will trigger to preserve conversation quality.',
  );
  expect(warningText(0.6, 130_000, 200_000)).toBe('Context: 65% used');
});
