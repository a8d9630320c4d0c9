import { ENCODINGS, type Encoding } from '@ctxguard/bpe';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';

/** An OpenAI BPE encoding the exact engines implement: `o200k_base` or `cl100k_base`. */
export type ExactEncoding = Encoding;

/** Schema of an encoding name, for options that take one. */
export const exactEncodingSchema = lazySchema(() => z.enum(ENCODINGS));

/** Built-in exact engines: `@ctxguard/bpe` (pure JS, linear time) and the `tiktoken` WASM build. */
export const ENGINE_KINDS = ['bpe', 'tiktoken'] as const;

/** Name of a built-in exact engine. */
export type EngineKind = (typeof ENGINE_KINDS)[number];

/**
 * An exact BPE tokenizer for one encoding. Implement it to plug in another tokenizer.
 * `count` treats special-token text (`<|endoftext|>`) as ordinary text, as chat APIs do for content.
 */
export interface ExactEngine {
  readonly specificationVersion: 'v1';
  /** Engine name, for reports (`bpe`, `tiktoken`, or your own). */
  readonly name: string;
  readonly encoding: ExactEncoding;
  /**
   * `true` when `count` runs in (near-)linear time on every input. Counters send text with long
   * unbroken runs (CJK, base64, minified code) only to linear engines.
   */
  readonly linear: boolean;
  /** Exact number of tokens of `text`. */
  count(text: string): number;
  /** Token ids of `text`, when the engine can produce them. */
  encode?(text: string): number[];
  /** Releases this handle; shared encoder memory is freed when the last handle is released. */
  dispose(): void;
}
