import { describe, expect, it } from 'vitest';
import { assistant, call, calls, results } from '../../test/support/messages.js';
import { fileActivityOfText } from './file-activity.js';
import { renderTranscript } from './transcript.js';

describe('fileActivityOfText', () => {
  it('lists each file once, read and modified apart, in the order first seen', () => {
    const messages = [
      calls([call('1', 'read_file', { path: 'src/a.ts' })]),
      results(['1', 'read_file', 'export const a = 1;']),
      calls([call('2', 'bash', { command: 'sed -i s/1/2/ src/a.ts && cat src/b.ts' })]),
      assistant('done'),
      calls([call('3', 'read_file', { path: 'src/a.ts' })]),
    ];
    const activity = fileActivityOfText(renderTranscript(messages));
    expect(activity).toEqual({ read: ['src/a.ts', 'src/b.ts'], modified: ['src/a.ts'] });
  });
});
