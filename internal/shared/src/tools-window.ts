/**
 * Tokens one request to context tools may hold: `bound` (the caller's own limit), lowered to the
 * tools' `windowTokens` when they declare one (their model's context window). Anything but a
 * positive finite number there declares nothing.
 */
export function toolsWindowTokens(tools: { readonly windowTokens?: unknown }, bound: number): number {
  const declared = tools.windowTokens;
  return typeof declared === 'number' && Number.isFinite(declared) && declared > 0
    ? Math.min(bound, declared)
    : bound;
}

/** Share of a request to context tools left for their instructions and answer. */
const INSTRUCTIONS_AND_ANSWER = 0.25;

/**
 * Characters of a text (`textChars` long, `textTokens` tokens) that one request of `windowTokens`
 * may carry: sized at the text's own characters per token (code and CJK hold fewer than prose), a
 * quarter of the window left for the instructions and the answer.
 */
export function charsPerRequest(windowTokens: number, textChars: number, textTokens: number): number {
  const charsPerToken = textChars / Math.max(1, textTokens);
  return Math.max(1_000, Math.floor(windowTokens * (1 - INSTRUCTIONS_AND_ANSWER) * charsPerToken));
}
