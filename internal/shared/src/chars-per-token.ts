/** Rough characters per token, where a length in characters meets a room in tokens and no counter is at hand. */
export const CHARS_PER_TOKEN = 4;
