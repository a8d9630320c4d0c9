/** Windows of a long text counted exactly for its estimate. */
const COUNT_SAMPLE_WINDOWS = 8;
/** Characters per window. */
const SAMPLE_CHARS = 2_048;
/** Characters a sampled estimate counts exactly at most; shorter texts are not sampled. */
export const SAMPLED_CHARS = COUNT_SAMPLE_WINDOWS * SAMPLE_CHARS;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * An estimate of a long `text` from exact counts of evenly spaced windows of it (the first and the
 * last included), scaled to its length. A text's own characters decide its tokens per character: a
 * run of one letter takes 2 to 8 characters per token depending on the letter, base64 about 1.5,
 * prose about 4, where a general rule would be off by up to 2.5×. `undefined` when `count` cannot
 * count a window now, or when the text is not longer than the windows together.
 */
export function sampledCount(
  text: string,
  count: (window: string) => number | undefined,
): number | undefined {
  if (text.length <= SAMPLED_CHARS) return undefined;
  const step = (text.length - SAMPLE_CHARS) / (COUNT_SAMPLE_WINDOWS - 1);
  let tokens = 0;
  let chars = 0;
  for (let index = 0; index < COUNT_SAMPLE_WINDOWS; index++) {
    // Never half a surrogate pair at either end of a window.
    let start = Math.round(index * step);
    if (isLowSurrogate(text.charCodeAt(start))) start++;
    let end = Math.min(text.length, start + SAMPLE_CHARS);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    const window = text.slice(start, end);
    const n = count(window);
    if (n === undefined) return undefined;
    tokens += n;
    chars += window.length;
  }
  return chars === 0 ? undefined : Math.ceil((tokens * text.length) / chars);
}
