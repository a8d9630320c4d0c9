/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** JSON that is safe inside a `<script>` element (no `</script>`, no `<!--`). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

/** A thousands-separated integer. */
export function formatInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A share as a whole percentage. */
export function formatPercent(share: number): string {
  return `${Math.round(share * 100)}%`;
}
