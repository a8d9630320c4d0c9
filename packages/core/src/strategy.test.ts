import { abortSignalSchema } from '@ctxguard/shared';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidInputError, parseInput } from './errors.js';

describe('a signal option checked at the boundary', () => {
  it('is named in the error when it cannot cancel anything', () => {
    const options = z.strictObject({ signal: abortSignalSchema.optional() });
    const attempt = () => parseInput(options, { signal: { aborted: false } }, 'options');
    expect(attempt).toThrow(InvalidInputError);
    expect(attempt).toThrow('options.signal: expected an AbortSignal');
  });
});
