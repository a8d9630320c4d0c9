/** No tokenizer counts less than a quarter of another's tokens for the same text. */
export const TOKENIZER_SPREAD = 4;

/**
 * Whether `reported` tokens cannot be a provider's count of what another tokenizer counted as
 * `estimated`: under a quarter of it (cache reads left out, another request's usage).
 */
export function belowTokenizerSpread(reported: number, estimated: number): boolean {
  return reported * TOKENIZER_SPREAD < estimated;
}
