import { InvalidOptionsError } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { addAppliedEdits, appliedEdits, emptyServerEditStats } from './anthropic-context-management.js';
import { ctxguardMiddleware } from './ctxguard-middleware.js';

describe('applied edits as the server reports them', () => {
  it('keeps every well-formed entry when another is not one, and no negative or fractional counts', () => {
    const metadata = {
      anthropic: {
        contextManagement: {
          appliedEdits: [
            { type: 'clear_tool_uses_20250919', clearedToolUses: 9, clearedInputTokens: 4_000 },
            null,
            { type: 'clear_thinking_20251015', clearedThinkingTurns: '2' },
            { type: 'clear_tool_uses_20250919', clearedToolUses: -9, clearedInputTokens: -1e9 },
            { type: 'compact_20260112', clearedInputTokens: 1.5 },
            { type: 'compact_20260112' },
          ],
        },
      },
    };
    const edits = appliedEdits(metadata as never);
    expect(edits.map((edit) => edit.type)).toEqual(['clear_tool_uses_20250919', 'compact_20260112']);
    expect(addAppliedEdits(emptyServerEditStats(), edits)).toEqual({
      responsesWithEdits: 1,
      clearedToolUses: 9,
      clearedThinkingTurns: 0,
      clearedInputTokens: 4_000,
      compactions: 1,
    });
    expect(appliedEdits({ anthropic: { contextManagement: { appliedEdits: 'none' } } } as never)).toEqual([]);
  });
});

describe('providerContextManagement that would guard nothing', () => {
  it('is refused with every edit off, naming what to do', () => {
    const all = { clearToolUses: false, clearThinking: false, compact: false };
    expect(() => ctxguardMiddleware({ providerContextManagement: all })).toThrow(InvalidOptionsError);
    expect(() => ctxguardMiddleware({ providerContextManagement: all })).toThrow(
      /providerContextManagement: asks the server for no edit .*leave providerContextManagement out to compact here/,
    );
  });

  it('is refused with compactInstructions but no compaction', () => {
    expect(() =>
      ctxguardMiddleware({ providerContextManagement: { compactInstructions: 'Keep the file names.' } }),
    ).toThrow(
      'providerContextManagement.compactInstructions: is used only by the server compaction: set compact: true, or remove it',
    );
    expect(
      ctxguardMiddleware({
        providerContextManagement: { compact: true, compactInstructions: 'Keep the file names.' },
      }).specificationVersion,
    ).toBe('v3');
  });
});

describe('keepThinkingTurns', () => {
  it('names both forms it takes when given neither', () => {
    expect(() =>
      ctxguardMiddleware({ providerContextManagement: { keepThinkingTurns: 'none' as unknown as 'all' } }),
    ).toThrow("providerContextManagement.keepThinkingTurns: must be a positive integer or 'all'");
    expect(() => ctxguardMiddleware({ providerContextManagement: { keepThinkingTurns: 0 } })).toThrow(
      "providerContextManagement.keepThinkingTurns: must be a positive integer or 'all'",
    );
  });
});
