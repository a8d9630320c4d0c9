/** Windows of a long text counted exactly for its estimate. */
const COUNT_SAMPLE_WINDOWS = 64;
/** Characters per window. */
const SAMPLE_CHARS = 256;
/** How far a window's ends move back to reach a word start: a quarter of the window. */
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
 * ones miss, for the same characters counted; each is cut where the pre-tokenizer starts a piece.
 * `undefined` when `count` cannot count a window now, or when the text is not longer than the
 * windows together.
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

/**
 * The window of {@link SAMPLE_CHARS} at `at`, both ends moved back to the word start at or before
 * them where one is near (never half a surrogate pair). Both move the same way, so a window holds
 * whole pieces and as much of the whitespace between words as the text around it.
 */
function windowAt(text: string, at: number): string {
  const end = Math.min(text.length, at + SAMPLE_CHARS);
  let start = wordStartAtOrBefore(text, at, Math.max(0, at - SNAP_CHARS)) ?? at;
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  let stop =
    end < text.length ? (wordStartAtOrBefore(text, end, Math.max(start + 1, end - SNAP_CHARS)) ?? end) : end;
  if (stop < text.length && isHighSurrogate(text.charCodeAt(stop - 1))) stop--;
  return text.slice(start, stop);
}

/** A space the pre-tokenizer starts a piece at: the last of a run of spaces, before a word. */
function isWordStart(text: string, index: number): boolean {
  if (index + 1 >= text.length || text.charCodeAt(index) !== 0x20) return false;
  const next = text.charCodeAt(index + 1);
  return next !== 0x20 && next !== 0x0a;
}

/** The nearest word start from `index` back to `floor`. */
function wordStartAtOrBefore(text: string, index: number, floor: number): number | undefined {
  for (let at = index; at >= floor; at--) if (isWordStart(text, at)) return at;
  return undefined;
}
