import type { Message } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assistant, call, calls, results, user } from '../../test/support/messages.js';
import { fileActivityOf, fileActivityOfRenderings } from './file-activity.js';
import { parseTranscript, renderTranscript } from './transcript.js';

/** One message that reads, writes, edits or runs something on a few paths (or just talks). */
const message = fc
  .tuple(
    fc.constantFrom('read_file', 'write_file', 'edit', 'str_replace_editor', 'bash', 'talk'),
    fc.constantFrom('src/a.ts', 'src/b.ts', 'README.md', 'test/a.test.ts'),
    fc.constantFrom('view', 'create', 'cat', 'sed -i s/a/b/', 'touch', 'rm'),
  )
  .map(([tool, path, verb]): Message => {
    if (tool === 'talk') return user(`please look at ${path}`);
    const input =
      tool === 'bash'
        ? { command: `${verb} ${path}` }
        : tool === 'str_replace_editor'
          ? { command: verb, path }
          : { path };
    return calls([call(`c-${tool}-${path}`, tool, input)], `${tool} ${path}`);
  });

describe('fileActivityOfRenderings', () => {
  it('finds what the transcript of the renderings joined shows, for any conversation', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 24 }), (messages) => {
        const renderings = messages.map((m) => ({ text: renderTranscript([m]) }));
        const joined = renderings.map((r) => r.text).join('\n');
        expect(fileActivityOfRenderings(renderings)).toEqual(fileActivityOf(parseTranscript(joined)));
        // Read again (remembered per rendering): the same.
        expect(fileActivityOfRenderings(renderings)).toEqual(fileActivityOf(parseTranscript(joined)));
      }),
      { numRuns: 200, seed: 35 },
    );
  });

  it('lists each file once, read and modified apart, in the order first seen', () => {
    const messages = [
      calls([call('1', 'read_file', { path: 'src/a.ts' })]),
      results(['1', 'read_file', 'export const a = 1;']),
      calls([call('2', 'bash', { command: 'sed -i s/1/2/ src/a.ts && cat src/b.ts' })]),
      assistant('done'),
      calls([call('3', 'read_file', { path: 'src/a.ts' })]),
    ];
    const activity = fileActivityOfRenderings(messages.map((m) => ({ text: renderTranscript([m]) })));
    expect(activity).toEqual({ read: ['src/a.ts', 'src/b.ts'], modified: ['src/a.ts'] });
  });
});
