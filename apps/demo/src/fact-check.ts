// The demo scores facts with the quality benchmark's scorer, so its "facts kept" is the
// benchmark's figure for the same transcript.
import type { Message } from 'ctxguard';
import {
  findFacts,
  type ScoredFact,
  type ScoredFactKind,
  scoreFacts,
  stringsOf,
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

/**
 * The text of one message as the report shows it: text, reasoning, tool inputs and outputs (a
 * result's `content` parts repeat its output, so they are not shown again).
 */
export function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const chunks: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text' || part.type === 'reasoning') chunks.push(part.text);
    else if (part.type === 'tool-call') chunks.push(...stringsOf(part.input));
    else if (part.type === 'tool-result') chunks.push(...stringsOf(part.output));
  }
  return chunks.join('\n');
}

/** Which `facts` still appear verbatim, as whole tokens, somewhere in `messages` (what the model is sent). */
export function tallyFacts(facts: readonly DemoFact[], messages: readonly Message[]): FactTally {
  const { kept, total, missing } = scoreFacts(facts, messages);
  return { kept, total, lost: missing.slice(0, 20) };
}
