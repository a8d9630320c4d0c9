/**
 * A one-pass character estimate used only until an exact encoder is loaded (or for text too
 * long to count synchronously): ASCII ≈ 4 characters per token, ideographs and kana ≈ 1 token
 * each, other non-ASCII ≈ 2 characters per token. Never throws.
 */
export function roughEstimate(text: string): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  let ascii = 0;
  let wide = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    else if ((c >= 0x2e80 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff))
      wide++;
    else if (c >= 0xdc00 && c <= 0xdfff) continue;
    else other++;
  }
  return Math.ceil(ascii / 4 + wide + other / 2);
}

/** Length of the longest run of non-whitespace or of whitespace characters (what a BPE piece can span). */
export function longestRun(text: string): number {
  let longest = 0;
  let run = 0;
  let wasSpace = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space =
      c === 32 ||
      (c >= 9 && c <= 13) ||
      c === 0x85 ||
      c === 0xa0 ||
      c === 0x3000 ||
      (c >= 0x2000 && c <= 0x200a);
    if (space === wasSpace) run++;
    else {
      if (run > longest) longest = run;
      run = 1;
      wasSpace = space;
    }
  }
  return Math.max(run, longest);
}
