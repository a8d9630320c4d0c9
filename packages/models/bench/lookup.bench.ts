import { ModelCatalog, type ResolvedModel } from '@ctxguard/models';
import type { BenchHarness } from '../../../bench/harness.ts';

/** Ids as apps send them: exact, dated snapshots (prefix), unknown (provider default). */
const LOOKUPS: [string, string][] = [
  ['openai', 'gpt-4o'],
  ['openai', 'gpt-4o-2024-08-06'],
  ['anthropic', 'claude-sonnet-4-5-20250929'],
  ['google-ai', 'gemini-2.5-flash-preview-05-20'],
  ['bedrock', 'us.anthropic.claude-haiku-4-5-20251001-v1:0'],
  ['ollama', 'llama3.1:8b'],
];

export async function run(h: BenchHarness): Promise<void> {
  const catalog = new ModelCatalog();
  // Baseline: a plain Map holding the already-resolved answers (the floor for any lookup).
  const answers = new Map<string, ResolvedModel>(
    LOOKUPS.map(([p, m]) => [`${p}\u0000${m}`, catalog.get(p, m)]),
  );
  let i = 0;
  const next = (): [string, string] => LOOKUPS[i++ % LOOKUPS.length]!;
  // Distinct ids beyond the resolution cache, so every lookup walks the prefix table.
  const misses = Array.from({ length: 5_000 }, (_, n) => `gpt-4o-mini-build-${n}`);
  let j = 0;

  await h.compare(
    'model lookup (6 realistic ids, round robin)',
    [
      'Map.get of resolved answers',
      () => {
        const [p, m] = next();
        return answers.get(`${p}\u0000${m}`);
      },
    ],
    [
      [
        'catalog.get (cached)',
        () => {
          const [p, m] = next();
          return catalog.get(p, m);
        },
      ],
      [
        'catalog.getAvailableInputTokens (cached)',
        () => {
          const [p, m] = next();
          return catalog.getAvailableInputTokens(p, m);
        },
      ],
      ['catalog.get (uncached prefix walk)', () => catalog.get('openai', misses[j++ % misses.length]!)],
    ],
  );

  await h.compare(
    'catalog construction',
    [
      'new Map of the 136 built-in entries',
      () => new Map(catalog.list().map((info) => [`${info.provider}/${info.model}`, info])),
    ],
    [
      ['new ModelCatalog() (built-ins)', () => new ModelCatalog()],
      ['new ModelCatalog({ builtins: false })', () => new ModelCatalog({ builtins: false })],
    ],
    { time: h.quick ? 100 : 300 },
  );
}
