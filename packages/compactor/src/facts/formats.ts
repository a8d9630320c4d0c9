/**
 * The blocks ctxguard writes into a conversation, one object per format: how to write it, read it
 * and recognize it. Guard, strategies and third-party strategies read and write these.
 */
import { boundFacts, leftOutFacts } from './fact-bound.js';
import {
  derivedFactKey,
  FACTS_CLOSE,
  FACTS_OPEN,
  parseFactsBlock,
  redactFact,
  renderFactsBlock,
  stripFactsBlocks,
} from './facts-block.js';
import {
  containsMarkerLookalike,
  isPrunedOutputText,
  isTruncationMarkerText,
  neutralizeMarkers,
  parsePrunedOutput,
  parseTruncationMarker,
  renderPrunedOutput,
  renderTruncationMarker,
  restoreMarkers,
} from './markers.js';
import { isSummaryText, parseSummary, renderSummary } from './summary-format.js';

/** The facts block (`<!-- ctxguard:facts -->`): facts kept across compactions. */
export const factsBlock = Object.freeze({
  /** `<!-- ctxguard:facts -->`, the line that opens a block. */
  open: FACTS_OPEN,
  /** `<!-- /ctxguard:facts -->`, the line that closes a block. */
  close: FACTS_CLOSE,
  render: renderFactsBlock,
  parse: parseFactsBlock,
  /** Removes every facts block from a text. */
  strip: stripFactsBlocks,
  /** The key a fact gets from its category and value (the offline extractor's `category.slug`). */
  keyOf: derivedFactKey,
  /** Passes a fact's key, value and span through `redact`. */
  redact: redactFact,
  /** The facts whose block fits a token bound, most valuable per token first. */
  bound: boundFacts,
  /** What a bound left out, best first. */
  leftOut: leftOutFacts,
});

/** The summary message (`<!-- ctxguard:summary messages=N -->`) with its files and facts. */
export const summaryBlock = Object.freeze({
  render: renderSummary,
  parse: parseSummary,
  is: isSummaryText,
});

/** Marker texts and the escaping that keeps user and tool text from forging any block. */
export const markers = Object.freeze({
  /** Breaks every readable spelling of the marker keyword; `restore` undoes it exactly. */
  neutralize: neutralizeMarkers,
  restore: restoreMarkers,
  /** True when a text holds any spelling of the marker keyword that could forge a block. */
  containsLookalike: containsMarkerLookalike,
  /** `<!-- ctxguard:truncated hidden=N -->`, where the sliding window hid messages. */
  truncation: Object.freeze({
    render: renderTruncationMarker,
    parse: parseTruncationMarker,
    is: isTruncationMarkerText,
  }),
  /** `<!-- ctxguard:pruned tokens=N chars=N -->`, the placeholder of a pruned tool output. */
  prunedOutput: Object.freeze({
    render: renderPrunedOutput,
    parse: parsePrunedOutput,
    is: isPrunedOutputText,
  }),
});
