import { describe, expect, it } from 'vitest';
import { type ContextStrategy, type HistorySegments, HookBus, type StrategyTools } from '../src/index.js';

describe('README examples', () => {
  it('quick start emits a warning to a listener it then removes', async () => {
    const hooks = new HookBus();
    const seen: string[] = [];
    const off = hooks.on('onWarning', (w) => {
      seen.push(w.message);
    });
    await hooks.emit('onWarning', { code: 'demo', message: 'hello' });
    off();
    expect(seen).toEqual(['hello']);
    expect(hooks.listenerCount()).toBe(0);
  });

  it('the strategy example warns first, then drops the older half', async () => {
    const dropHalf: ContextStrategy = {
      specificationVersion: 'v1',
      triggers: [
        { level: 'warn', at: 0.8 },
        { level: 'critical', at: 0.95 },
      ],
      react({ level, tools }) {
        if (level === 'warn') return { action: 'warn', message: 'context is 80% full' };
        tools.dropOldest(Math.floor(tools.historyLength / 2));
        return { action: 'compacted', note: 'dropped the older half' };
      },
    };
    const dropped: number[] = [];
    const empty: HistorySegments = { old: [], middle: [], recent: [] };
    const unchanged = { changed: false, compactionIds: [], hiddenCount: 0, tokensBefore: 0, tokensAfter: 0 };
    const tools: StrategyTools = {
      historyLength: 10,
      segment: () => empty,
      measure: () => 0,
      extractFacts: async () => [],
      summarize: async () => '',
      replaceRange: () => unchanged,
      dropOldest: (n) => {
        dropped.push(n);
        return { ...unchanged, changed: true, compactionIds: ['t1'], hiddenCount: n };
      },
      pruneToolOutputs: async () => ({ ...unchanged, prunedOutputs: 0 }),
      deduplicateFileReads: async () => ({ ...unchanged, deduplicatedReads: 0, files: [] }),
      slideWindow: async () => ({ ...unchanged, removedMessages: 0 }),
      microcompactToolResults: async () => ({ ...unchanged, clearedResults: 0 }),
      lightTrim: async () => ({ ...unchanged, trimmedOutputs: 0, droppedReasoning: 0 }),
      compactMessages: async () => ({ ...unchanged, fits: true }),
      summarizeRange: async () => ({ ...unchanged, facts: [] }),
      injectFacts: () => {},
    };
    const base = {
      percentage: 0.9,
      current: 900,
      window: 1200,
      inputBudget: 1000,
      delta: 100,
      provider: 'p',
      model: 'm',
      attempt: 0,
      tools,
      state: {},
    };
    expect(await dropHalf.react({ ...base, level: 'warn' })).toEqual({
      action: 'warn',
      message: 'context is 80% full',
    });
    expect(dropped).toEqual([]);
    expect(await dropHalf.react({ ...base, level: 'critical' })).toEqual({
      action: 'compacted',
      note: 'dropped the older half',
    });
    expect(dropped).toEqual([5]);
  });
});
