import { BpeArgumentError } from './bpe-argument-error.js';

/** The OpenAI encodings this package counts exactly. */
export const ENCODINGS = ['o200k_base', 'cl100k_base'] as const;

/** An OpenAI BPE encoding: `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series) or `cl100k_base` (GPT-4, GPT-3.5). */
export type Encoding = (typeof ENCODINGS)[number];

/** True when `value` names an encoding of {@link ENCODINGS}. */
export function isEncoding(value: unknown): value is Encoding {
  return typeof value === 'string' && (ENCODINGS as readonly string[]).includes(value);
}

/** Checks an encoding argument; throws a {@link BpeArgumentError} naming `field` otherwise. */
export function checkEncoding(value: unknown, field = 'encoding'): Encoding {
  if (isEncoding(value)) return value;
  const got = typeof value === 'string' ? `'${value}'` : typeof value;
  throw new BpeArgumentError(
    `${field}: expected one of ${ENCODINGS.map((e) => `'${e}'`).join(', ')}, got ${got}`,
    field,
  );
}

/** Checks a text argument; throws a {@link BpeArgumentError} naming `field` otherwise. */
export function checkText(value: unknown, field = 'text'): string {
  if (typeof value === 'string') return value;
  throw new BpeArgumentError(
    `${field}: expected a string, got ${value === null ? 'null' : typeof value}`,
    field,
  );
}
