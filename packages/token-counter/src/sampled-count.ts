/** Windows of a long text counted exactly for its estimate. */
const COUNT_SAMPLE_WINDOWS = 64;
/** Characters per window. */
const SAMPLE_CHARS = 256;
/** How far a window's ends move to reach a space: a quarter of the window. */
const SNAP_CHARS = SAMPLE_CHARS / 4;
/** Characters a sampled estimate counts exactly at most; shorter texts are not sampled. */
export const SAMPLED_CHARS = COUNT_SAMPLE_WINDOWS * SAMPLE_CHARS;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * An estimate of a long `text` from exact counts of evenly spaced windows of it (the first and the
 * last included), scaled to its length. A text's own characters decide its tokens per character: a
 * run of one letter takes 2 to 8 characters per token depending on the letter, base64 about 1.5,
 * prose about 4, where a general rule would be off by up to 2.5×. Many small windows follow the
 * changes within a text (a source file's license header, code, an embedded blob) that a few large
 * ones miss, for the same characters counted; each starts and ends at a space where one is near, so
 * no word is cut in two (the pre-tokenizer starts a piece at a space). `undefined` when `count`
 * cannot count a window now, or when the text is not longer than the windows together.
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
    const window = windowAt(text, Math.round(index * step));
    const n = count(window);
    if (n === undefined) return undefined;
    tokens += n;
    chars += window.length;
  }
  return chars === 0 ? undefined : Math.ceil((tokens * text.length) / chars);
}

/** The window of {@link SAMPLE_CHARS} at `at`, its ends moved to a near space, never half a surrogate pair. */
function windowAt(text: string, at: number): string {
  const end = Math.min(text.length, at + SAMPLE_CHARS);
  let start = firstSpace(text, at, Math.min(end, at + SNAP_CHARS)) ?? at;
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  let stop = end < text.length ? (lastSpace(text, Math.max(start + 1, end - SNAP_CHARS), end) ?? end) : end;
  if (stop < text.length && isHighSurrogate(text.charCodeAt(stop - 1))) stop--;
  return text.slice(start, stop);
}

function firstSpace(text: string, from: number, to: number): number | undefined {
  for (let index = from; index < to; index++) if (text.charCodeAt(index) === 0x20) return index;
  return undefined;
}

function lastSpace(text: string, from: number, to: number): number | undefined {
  for (let index = to - 1; index >= from; index--) if (text.charCodeAt(index) === 0x20) return index;
  return undefined;
}
