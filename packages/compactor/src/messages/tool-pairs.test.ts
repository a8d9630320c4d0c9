import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, call, calls, results, system, user } from '../../test/support/messages.js';
import { countToolPairViolations, repairToolPairs, toolPairUnits } from './tool-pairs.js';

describe('toolPairUnits', () => {
  it('groups an assistant with its parallel calls and every tool message answering them', () => {
    const list = [
      system('s'),
      user('u'),
      calls([call('a', 'read_file'), call('b', 'bash')]),
      results(['a', 'read_file', 'A']),
      results(['b', 'bash', 'B']),
      assistant('done'),
    ];
    expect(toolPairUnits(list)).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 2 },
      { start: 2, end: 5 },
      { start: 5, end: 6 },
    ]);
  });

  it('covers every index of odd input without throwing', () => {
    const odd = [null, 42, { role: 'tool' }, { role: 'assistant', content: 'x' }] as unknown as Message[];
    const units = toolPairUnits(odd);
    expect(units.map((u) => [u.start, u.end])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
  });
});

describe('repairToolPairs', () => {
  it('leaves a well-paired list alone and returns the same message objects', () => {
    const list = [
      user('u'),
      calls([call('a', 'bash', { command: 'ls' })]),
      results(['a', 'bash', 'x']),
      assistant('ok'),
    ];
    const result = repairToolPairs(list);
    expect(result.repaired).toBe(false);
    expect(result.messages).toEqual(list);
    for (const [index, message] of result.messages.entries()) expect(message).toBe(list[index]);
  });

  it('drops a call without a result from the sent view, keeping a note with its name and arguments', () => {
    const list = [
      user('u'),
      calls(
        [call('a', 'bash', { command: 'npm test' }), call('b', 'read_file', { path: 'x.ts' })],
        'running',
      ),
      results(['a', 'bash', 'ok']),
    ];
    const result = repairToolPairs(list);
    expect(result.orphanedCallsFixed).toBe(1);
    expect(result.messages).toHaveLength(3);
    const parts = result.messages[1]!.content as { type: string; text?: string; toolCallId?: string }[];
    expect(parts.filter((p) => p.type === 'tool-call').map((p) => p.toolCallId)).toEqual(['a']);
    expect(parts.some((p) => p.type === 'text' && p.text?.includes('read_file({"path":"x.ts"})'))).toBe(true);
    expect(result.repairs).toEqual([
      { kind: 'call-without-result', toolCallId: 'b', toolName: 'read_file', messageIndex: 1 },
    ]);
    expect(countToolPairViolations(result.messages)).toBe(0);
  });

  it('drops results without a call, duplicates included, and turns an emptied tool message into a system note', () => {
    const list = [
      user('u'),
      results(['ghost', 'bash', 'orphan']),
      calls([call('a', 'bash')]),
      results(['a', 'bash', 'first'], ['a', 'bash', 'again'], ['zzz', 'grep', 'stray']),
    ];
    const result = repairToolPairs(list);
    expect(result.orphanedResultsFixed).toBe(3);
    expect(result.messages).toHaveLength(4);
    expect(result.messages[1]!.role).toBe('system');
    expect(result.messages[1]!.content).toContain('without a matching call');
    const kept = result.messages[3]!.content as { output: string }[];
    expect(kept.map((p) => p.output)).toEqual(['first']);
    expect(countToolPairViolations(result.messages)).toBe(0);
  });

  it('treats a result separated from its call by a user message as unpaired (providers reject it)', () => {
    const list = [user('u'), calls([call('a', 'bash')]), user('wait'), results(['a', 'bash', 'late'])];
    expect(countToolPairViolations(list)).toBe(2);
    const result = repairToolPairs(list);
    expect(result.orphanedCallsFixed).toBe(1);
    expect(result.orphanedResultsFixed).toBe(1);
    expect(countToolPairViolations(result.messages)).toBe(0);
  });

  it('never throws on odd messages', () => {
    const odd = [
      null,
      'x',
      { role: 'assistant', content: [null, { type: 'tool-call' }] },
      { role: 'tool', content: 'nope' },
    ];
    expect(() => repairToolPairs(odd as unknown as Message[])).not.toThrow();
    expect(() => repairToolPairs(undefined as unknown as Message[])).not.toThrow();
  });
});
