import type { Message, ToolResultPart } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, bigText, call, calls, results, user } from '../../test/support/messages.js';
import { countToolPairViolations } from '../messages/tool-pairs.js';
import { deduplicateFileReads, isPlausiblePath, shellRead } from './deduplicate-file-reads.js';

const file = bigText('src/app.ts', 200);
const outputAt = (list: Message[], index: number) =>
  (list[index]!.content as ToolResultPart[])[0]!.output as string;

function reads(...steps: [string, string, unknown, string][]): Message[] {
  const list: Message[] = [user('work on the app')];
  steps.forEach(([id, name, input, output]) => {
    list.push(calls([call(id, name, input)]));
    list.push(results([id, name, output]));
  });
  list.push(assistant('done'));
  return list;
}

describe('deduplicateFileReads', () => {
  it('replaces an earlier read superseded by a later read of the same file', () => {
    const list = reads(
      ['r1', 'read_file', { path: './src/app.ts' }, file],
      ['r2', 'Read', { file_path: 'src/app.ts' }, file],
    );
    const result = deduplicateFileReads(list);
    expect(result.deduplicated).toBe(true);
    expect(result.files).toEqual(['src/app.ts']);
    expect(result.deduplicatedReads).toBe(1);
    expect(outputAt(result.messages, 2)).toContain('refer to the latest read');
    expect(outputAt(result.messages, 4)).toBe(file);
    expect(countToolPairViolations(result.messages)).toBe(0);
  });

  it('an editor that opens a file is no read: it supersedes nothing', () => {
    const list = reads(
      ['r1', 'read_file', { path: 'src/app.ts' }, file],
      ['o1', 'open', { path: 'src/app.ts' }, 'Opened src/app.ts in the editor'],
    );
    expect(deduplicateFileReads(list).deduplicated).toBe(false);
  });

  it('matches extra read tools by their letters and digits, in any script, and never by an empty name', () => {
    const list = reads(
      ['r1', 'ファイル読む', { path: 'src/app.ts' }, file],
      ['d1', 'ファイル削除', { path: 'src/other.ts' }, 'deleted'],
      ['r2', 'ファイル_読む', { path: 'src/app.ts' }, file],
    );
    expect(deduplicateFileReads(list).deduplicatedReads).toBe(0);
    const result = deduplicateFileReads(list, { readTools: ['ファイル読む'] });
    expect(result.deduplicatedReads).toBe(1);
    expect(outputAt(result.messages, 2)).toContain('refer to the latest read');
    expect(deduplicateFileReads(list, { readTools: ['---'] }).deduplicatedReads).toBe(0);
  });

  it('keeps both reads when the file was edited in between', () => {
    const list = reads(
      ['r1', 'read_file', { path: 'src/app.ts' }, file],
      ['e1', 'edit_file', { path: 'src/app.ts', old: 'a', new: 'b' }, 'ok'],
      ['r2', 'read_file', { path: 'src/app.ts' }, file],
    );
    expect(deduplicateFileReads(list).deduplicated).toBe(false);
  });

  it('treats a shell command that mentions the file as a possible edit', () => {
    const list = reads(
      ['r1', 'bash', { command: 'cat src/app.ts' }, file],
      ['s1', 'bash', { command: "sed -i 's/a/b/' src/app.ts" }, ''],
      ['r2', 'bash', { command: 'cat src/app.ts' }, file],
    );
    expect(deduplicateFileReads(list).deduplicated).toBe(false);
  });

  it('recognises cat-like shell reads with one path, never flags or words', () => {
    expect(shellRead('cat -n src/app.ts')).toEqual({ path: 'src/app.ts', range: '' });
    expect(shellRead('head -n 40 README.md')).toEqual({ path: 'README.md', range: 'head -n 40' });
    expect(shellRead('cat a.ts b.ts')).toBeUndefined();
    expect(shellRead('cat src/app.ts | grep x')).toBeUndefined();
    expect(shellRead('cat -n')).toBeUndefined();
    expect(shellRead('cat the')).toBeUndefined();
    expect(isPlausiblePath('-n')).toBe(false);
    expect(isPlausiblePath('file')).toBe(false);
    expect(isPlausiblePath('Makefile')).toBe(true);
    expect(isPlausiblePath('packages/core/src')).toBe(true);
  });

  it('a partial read supersedes only the same range; a whole read supersedes every earlier range', () => {
    const partial = reads(
      ['r1', 'read_file', { path: 'src/app.ts', offset: 1, limit: 50 }, file],
      ['r2', 'read_file', { path: 'src/app.ts', offset: 51, limit: 50 }, file],
    );
    expect(deduplicateFileReads(partial).deduplicated).toBe(false);
    const whole = reads(
      ['r1', 'read_file', { path: 'src/app.ts', offset: 1, limit: 50 }, file],
      ['r2', 'read_file', { path: 'src/app.ts' }, file],
    );
    expect(deduplicateFileReads(whole).deduplicatedReads).toBe(1);
  });

  it('a read with an argument it does not know (head, tail, one-indexed lines) never stands for the whole file', () => {
    for (const narrowing of [
      { head: 10 },
      { tail: 20 },
      { start_line_one_indexed: 1, end_line_one_indexed_inclusive: 40, should_read_entire_file: false },
    ]) {
      const list = reads(
        ['r1', 'read_text_file', { path: 'src/app.ts' }, file],
        ['r2', 'read_text_file', { path: 'src/app.ts', ...narrowing }, file.slice(0, 200)],
      );
      expect(deduplicateFileReads(list, { minSavingsRatio: 0 }).deduplicated).toBe(false);
    }
    // Arguments that change nothing about what is read keep it a whole-file read.
    const whole = reads(
      ['r1', 'read_file', { target_file: 'src/app.ts', should_read_entire_file: true }, file],
      ['r2', 'read_file', { target_file: 'src/app.ts', explanation: 'again' }, file],
    );
    expect(deduplicateFileReads(whole).deduplicatedReads).toBe(1);
  });

  it('pairs each call with its own result when servers reuse call ids across turns', () => {
    // Ollama and llama.cpp number calls per turn: "call_0" in every turn.
    const log = `FAIL src/math.test.ts > adds\nAssertionError: expected 3 to be 4\n${'at line\n'.repeat(400)}`;
    const list = reads(
      ['call_0', 'bash', { command: 'pnpm test' }, log],
      ['call_0', 'read_file', { path: 'src/app.ts' }, file],
      ['call_1', 'read_file', { path: 'src/app.ts' }, file],
    );
    const result = deduplicateFileReads(list, { minSavingsRatio: 0 });
    expect(result.deduplicatedReads).toBe(1);
    expect(outputAt(result.messages, 2)).toBe(log);
    expect(outputAt(result.messages, 4)).toContain('refer to the latest read');
    expect(outputAt(result.messages, 6)).toBe(file);
    expect(countToolPairViolations(result.messages)).toBe(0);
  });

  it('applies only when the savings reach 30% of the file-read tokens', () => {
    const other = bigText('src/other.ts', 2_000);
    const list = reads(
      ['r1', 'read_file', { path: 'src/small.ts' }, 'export const x = 1;\n'.repeat(20)],
      ['r2', 'read_file', { path: 'src/small.ts' }, 'export const x = 1;\n'.repeat(20)],
      ['r3', 'read_file', { path: 'src/other.ts' }, other],
    );
    expect(deduplicateFileReads(list).deduplicated).toBe(false);
    expect(deduplicateFileReads(list, { minSavingsRatio: 0 }).deduplicated).toBe(true);
  });

  it('falls back to the text pattern only for unknown tools, and never on flags', () => {
    const list = reads(
      ['x1', 'workspace', 'read src/app.ts', file],
      ['x2', 'workspace', 'read src/app.ts', file],
    );
    expect(deduplicateFileReads(list).deduplicatedReads).toBe(1);
    const flags = reads(['x1', 'workspace', 'cat -n', file], ['x2', 'workspace', 'cat -n', file]);
    expect(deduplicateFileReads(flags).deduplicated).toBe(false);
  });

  it('does not count a failed read', () => {
    const list = reads(
      ['r1', 'read_file', { path: 'src/app.ts' }, file],
      ['r2', 'read_file', { path: 'src/app.ts' }, 'ENOENT'],
    );
    (list[4]!.content as ToolResultPart[])[0]!.isError = true;
    expect(deduplicateFileReads(list).deduplicated).toBe(false);
  });

  it('never throws on odd messages', () => {
    const odd = [
      null,
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'read_file', input: null }],
      },
    ];
    expect(() => deduplicateFileReads(odd as unknown as Message[])).not.toThrow();
  });
});
