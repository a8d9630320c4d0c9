import type { Cancellable } from '@ctxguard/core';
import { throwIfAborted } from '@ctxguard/shared';

/** What a {@link RelevanceScorer} is asked: how relevant each document is to the query. */
export interface RelevanceScoreRequest extends Cancellable {
  /** The current task: the newest user message and the tool loop that follows it. */
  query: string;
  /** One text per older unit (a message, or a tool call with its results), oldest first. */
  documents: readonly string[];
}

/**
 * Scores documents against a query: one non-negative number per document, in order, higher is
 * more relevant (only the order matters). A model-backed scorer honours `signal`.
 */
export type RelevanceScorer = (request: RelevanceScoreRequest) => Promise<readonly number[]>;

/** Words too common to say anything about relevance. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by can do for from has have if in into is it its no not of on or ' +
    'so such that the their then there these this to was were will with you your we i me my our'
  ).split(' '),
);

/** Lowercased terms of at least two characters, stop words out (paths and identifiers split at punctuation). */
function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return lower.length < 2 || STOP_WORDS.has(lower) ? null : lower;
}

type MiniSearchClass = typeof import('minisearch').default;

let miniSearch: Promise<MiniSearchClass> | undefined;

/** MiniSearch, loaded on the first score: a guard that never ranks by relevance never loads it. */
function loadMiniSearch(): Promise<MiniSearchClass> {
  miniSearch ??= import('minisearch').then((module) => module.default);
  return miniSearch;
}

/** Distinct terms of `text`, as the index tokenizes them, at most `limit` of them. */
function queryTerms(MiniSearch: MiniSearchClass, text: string, limit: number): string[] {
  const terms = new Set<string>();
  for (const raw of MiniSearch.getDefault('tokenize')(text) as string[]) {
    const term = processTerm(raw);
    if (term !== null) terms.add(term);
    if (terms.size >= limit) break;
  }
  return [...terms];
}

/** Most distinct query terms looked up; a long tool loop adds little past this. */
const MAX_QUERY_TERMS = 400;

/**
 * Offline BM25+ scores (MiniSearch: no model, no network, runs in Node and browsers) of each
 * document against the query's distinct terms; a document sharing no term scores 0.
 */
export async function scoreByBm25(query: string, documents: readonly string[]): Promise<number[]> {
  const MiniSearch = await loadMiniSearch();
  const scores = new Array<number>(documents.length).fill(0);
  const terms = queryTerms(MiniSearch, query, MAX_QUERY_TERMS);
  if (terms.length === 0 || documents.length === 0) return scores;
  const index = new MiniSearch<{ id: number; text: string }>({ fields: ['text'], processTerm });
  index.addAll(documents.map((text, id) => ({ id, text })));
  for (const result of index.search({ queries: terms, combineWith: 'OR' })) {
    scores[result.id as number] = result.score;
  }
  return scores;
}

/** The default {@link RelevanceScorer}: offline BM25+ scores of each document, cancellable before it starts. */
export const bm25Scorer: RelevanceScorer = async (request) => {
  throwIfAborted(request.signal);
  await loadMiniSearch();
  throwIfAborted(request.signal);
  return await scoreByBm25(request.query, request.documents);
};
