const GLOB_SPECIAL = /[*?[\]\\]/g;

/** Escapes Redis glob metacharacters (`* ? [ ] \`) so `text` matches itself literally in `SCAN MATCH`. */
export function escapeGlob(text: string): string {
  return text.replace(GLOB_SPECIAL, (char) => `\\${char}`);
}
