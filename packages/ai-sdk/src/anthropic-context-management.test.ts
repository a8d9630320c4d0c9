import { describe, expect, it } from 'vitest';
import { addAppliedEdits, appliedEdits, emptyServerEditStats } from './anthropic-context-management.js';

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
