/** Kinds of text whose characters-per-token differ enough to calibrate separately. */
export const CONTENT_CLASSES = ['prose', 'code', 'json', 'cjk'] as const;

/** A content class. */
export type ContentClass = (typeof CONTENT_CLASSES)[number];
