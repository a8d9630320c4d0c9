import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/**
 * Kinds of text whose characters-per-token differ enough to calibrate separately: natural
 * language, source code, JSON, Chinese/Japanese/Korean text, and HTML/XML markup.
 */
export const CONTENT_CLASSES = ['prose', 'code', 'json', 'cjk', 'markup'] as const;

/** A content class. */
export type ContentClass = (typeof CONTENT_CLASSES)[number];

/** Schema of a content class name. */
export const contentClassSchema = lazySchema(() => z.enum(CONTENT_CLASSES));
