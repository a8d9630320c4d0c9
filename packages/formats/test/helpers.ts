import type { ConversionLoss } from '../src/index.js';

/** Runs `fn` and returns what it threw (fails when it did not throw). */
export function thrown(fn: () => unknown): Error & { path?: readonly (string | number)[]; code?: string } {
  try {
    fn();
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`threw a non-Error: ${String(error)}`);
  }
  throw new Error('expected a throw');
}

/** An `onLoss` handler that records `[path, what]` pairs. */
export function lossRecorder(): { onLoss: (loss: ConversionLoss) => void; seen: [string, string][] } {
  const seen: [string, string][] = [];
  return { seen, onLoss: (loss) => seen.push([loss.path, loss.what]) };
}

/** A content part seen loosely, for assertions. */
export type LoosePart = { type: string; [key: string]: unknown };

/** The content parts of `messages[index]`; throws when it has string content or is missing. */
export function partsOf(messages: readonly { content: unknown }[], index: number): LoosePart[] {
  const content = messages[index]?.content;
  if (!Array.isArray(content)) throw new Error(`messages[${index}] has no content parts`);
  return content as LoosePart[];
}
