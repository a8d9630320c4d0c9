// The demo scores facts with the quality benchmark's scorer, so its "facts kept" is the
// benchmark's figure for the same transcript.
import type { Message } from 'ctxguard';
import {
  findFacts,
  type ScoredFact,
  type ScoredFactKind,
  scoreFacts,
  visibleText,
} from '../../../packages/compactor/bench/fact-scorer.ts';

export { findFacts };

/** Kinds of fact the demo looks for. */
export type DemoFactKind = ScoredFactKind;

/** A fact an agent would need later, verbatim from the transcript. */
export type DemoFact = ScoredFact;

/** How many of a transcript's facts a conversation still shows. */
export interface FactTally {
  kept: number;
  total: number;
  /** Up to 20 facts no longer shown, in transcript order. */
  lost: DemoFact[];
}

/** The text a model reads in one message, tool inputs and outputs included. */
export function messageText(message: Message): string {
  return visibleText([message]).replaceAll('\n\u0000\n', '\n');
}

/** Which `facts` still appear verbatim, as whole tokens, somewhere in `messages` (what the model is sent). */
export function tallyFacts(facts: readonly DemoFact[], messages: readonly Message[]): FactTally {
  const { kept, total, missing } = scoreFacts(facts, messages);
  return { kept, total, lost: missing.slice(0, 20) };
}
