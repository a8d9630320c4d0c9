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
