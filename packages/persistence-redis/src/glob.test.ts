import { describe, expect, it } from 'vitest';
import { escapeGlob } from './glob.js';

describe('escapeGlob', () => {
  it('escapes every Redis glob metacharacter and nothing else', () => {
    expect(escapeGlob('a*b?c[d]e\\f')).toBe('a\\*b\\?c\\[d\\]e\\\\f');
    expect(escapeGlob('plain:key/with-^dashes%')).toBe('plain:key/with-^dashes%');
    expect(escapeGlob('')).toBe('');
  });

  it('escapes a run of metacharacters one by one', () => {
    expect(escapeGlob('**??[[]]\\\\')).toBe('\\*\\*\\?\\?\\[\\[\\]\\]\\\\\\\\');
  });
});
