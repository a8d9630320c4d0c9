import { z } from 'zod';

/** Kinds of text whose characters-per-token differ enough to calibrate separately. */
export const CONTENT_CLASSES = ['prose', 'code', 'json', 'cjk'] as const;

/** A content class. */
export type ContentClass = (typeof CONTENT_CLASSES)[number];

/** Schema of a content class name. */
export const contentClassSchema = z.enum(CONTENT_CLASSES);
