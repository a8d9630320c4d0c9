/**
 * The blocks ctxguard writes into a conversation, one object per format: how to write it, read it
 * and recognize it. Guard, strategies and third-party strategies read and write these.
 */
import { boundFacts, leftOutFacts } from './fact-bound.js';
import {
  derivedFactKey,
  FACTS_CLOSE,
  FACTS_OPEN,
  isFactsBlockAlone,
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
export const factsBlock = /* @__PURE__ */ Object.freeze({
  /** `<!-- ctxguard:facts -->`, the line that opens a block. */
  open: FACTS_OPEN,
  /** `<!-- /ctxguard:facts -->`, the line that closes a block. */
  close: FACTS_CLOSE,
  /** The block holding `facts` (`''` for none), values neutralized, one bullet per category where it can. */
  render: renderFactsBlock,
  /** The facts of the first block in a text; `null` without one. */
  parse: parseFactsBlock,
  /** Removes every facts block from a text. */
  strip: stripFactsBlocks,
  /** True when a text is a facts block and nothing else: the system message `system-append` writes. */
  alone: isFactsBlockAlone,
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
export const summaryBlock = /* @__PURE__ */ Object.freeze({
  /** The summary message's text: `{ text, messageCount, facts?, filesRead?, filesModified? }` rendered. */
  render: renderSummary,
  /** What a summary text holds; `null` for any other text. */
  parse: parseSummary,
  /** True for the text of a summary. */
  is: isSummaryText,
});

/** Marker texts and the escaping that keeps user and tool text from forging any block. */
export const markers = /* @__PURE__ */ Object.freeze({
  /** Breaks every readable spelling of the marker keyword; `restore` undoes it exactly. */
  neutralize: neutralizeMarkers,
  /** Undoes `neutralize`: `restore(neutralize(x)) === x` for every string. */
  restore: restoreMarkers,
  /** True when a text holds any spelling of the marker keyword that could forge a block. */
  containsLookalike: containsMarkerLookalike,
  /** `<!-- ctxguard:truncated hidden=N -->`, where the sliding window hid messages. */
  truncation: /* @__PURE__ */ Object.freeze({
    /** The marker for `{ hiddenCount }` hidden messages. */
    render: renderTruncationMarker,
    /** `{ hiddenCount }` of a marker text; `null` for any other text. */
    parse: parseTruncationMarker,
    /** True for the text of a truncation marker. */
    is: isTruncationMarkerText,
  }),
  /** `<!-- ctxguard:pruned tokens=N chars=N -->`, the placeholder of a pruned tool output. */
  prunedOutput: /* @__PURE__ */ Object.freeze({
    /** The placeholder for `{ toolName, originalTokens, originalChars, keptFacts? }`. */
    render: renderPrunedOutput,
    /** What a placeholder says; `null` for any other text. */
    parse: parsePrunedOutput,
    /** True for the text of a pruned-output placeholder. */
    is: isPrunedOutputText,
  }),
});
