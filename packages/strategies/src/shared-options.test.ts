import { describe, expect, it } from 'vitest';
import { CacheFriendlyStrategy } from './cache-friendly-strategy.js';
import { EngineStrategy } from './engine-strategy.js';
import { LayoutStrategy } from './layout-strategy.js';
import { PipelineStrategy } from './pipeline-strategy.js';
import { RecompactStrategy } from './recompact-strategy.js';
import { RelevanceStrategy } from './relevance-strategy.js';
import { targetFor } from './shared-options.js';

describe('a target left to its default', () => {
  it('stays the default while at is at or above its own default, and keeps its share of a lower at', () => {
    const defaults = { at: 0.8, target: 0.6 };
    expect(targetFor({ at: 0.8 }, defaults)).toBe(0.6);
    expect(targetFor({ at: 0.95 }, defaults)).toBe(0.6);
    expect(targetFor({ at: 0.4 }, defaults)).toBeCloseTo(0.3, 12);
    expect(targetFor({ at: 0.4, target: 0.1 }, defaults)).toBe(0.1);
  });

  it.each([
    ['RecompactStrategy', (at: number) => new RecompactStrategy({ at })],
    ['CacheFriendlyStrategy', (at: number) => new CacheFriendlyStrategy({ at })],
    ['RelevanceStrategy', (at: number) => new RelevanceStrategy({ at })],
    ['EngineStrategy', (at: number) => new EngineStrategy({ at })],
    ['PipelineStrategy', (at: number) => new PipelineStrategy({ at })],
    ['LayoutStrategy', (at: number) => new LayoutStrategy({ at })],
  ])('lets %s take a lower at alone', (_name, create) => {
    for (const at of [0.5, 0.2, 0.05]) expect(create(at).triggers[0]?.at).toBe(at);
  });

  it('still refuses a target the user set at or above at, naming both', () => {
    expect(() => new RecompactStrategy({ at: 0.4, target: 0.5 })).toThrow(
      'RecompactStrategy options.target: must be below at (0.4)',
    );
    expect(() => new PipelineStrategy({ at: 0.5, target: 0.6 })).toThrow(
      'PipelineStrategy options.target: must be at most at (0.5)',
    );
    // An out-of-range target gets its own error only.
    expect(() => new PipelineStrategy({ target: 2 })).toThrow(/options\.target: .*1/);
    expect(() => new PipelineStrategy({ target: 2 })).not.toThrow(/at most at/);
  });
});
