import type { FactCategory } from '@ctxguard/core';

/** Categories in the order they are kept when room is short (in a facts block, and among one text's candidates past `maxFacts`): what an agent needs most first. */
export const PRIORITY: readonly FactCategory[] = [
  'error',
  'path',
  'command',
  'version',
  'decision',
  'quantity',
  'url',
  'identifier',
  'money',
  'preference',
  'email',
  'date',
  'time',
  'number',
  'name',
  'other',
];
