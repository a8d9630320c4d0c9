import { describe, expect, it } from 'vitest';
import { formatPath } from './format-path.js';

describe('formatPath', () => {
  it('renders indices in brackets and keys with dots', () => {
    expect(formatPath([3, 'content', 0, 'toolCallId'], 'messages')).toBe('messages[3].content[0].toolCallId');
    expect(formatPath(['a', 'b'])).toBe('a.b');
    expect(formatPath([0, 1])).toBe('[0][1]');
    expect(formatPath([], '')).toBe('(root)');
    expect(formatPath([], 'options')).toBe('options');
  });
});
