/**
 * The app's `ContextTools` as the guard calls them during one request. They are often a model
 * behind a network call and their answers are a model's output, so neither is trusted: every call
 * carries the request's signal, none outlives it (a tool that ignores its signal would otherwise
 * hold the request forever), and malformed facts are left out instead of failing the compaction
 * that asked for them.
 */
import {
  type ContextTools,
  type ExtractedFact,
  type ExtractFactsRequest,
  type FactCategory,
  factCategories,
  type SummarizeRequest,
} from '@ctxguard/core';

/** Facts an extraction answered that could not be used, reported once per call. */
export interface DroppedFacts {
  /** How many entries of the answer were left out. */
  count: number;
  /** Why the first of them was left out. */
  reason: string;
}

const CATEGORIES: ReadonlySet<string> = new Set(factCategories);

/** Rejects with the signal's reason (or an `AbortError`) once `signal` has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The request was cancelled', 'AbortError');
}

/** `promise`, or a rejection as soon as `signal` fires, whichever comes first. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener?.('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener?.('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A signal that fires when either does (the call's own, or the request's). */
export function eitherSignal(
  own: AbortSignal | undefined,
  request: AbortSignal | undefined,
): AbortSignal | undefined {
  if (own === undefined || own === request) return request;
  if (request === undefined) return own;
  const controller = new AbortController();
  const forward = (from: AbortSignal) => () => controller.abort(abortReason(from));
  if (own.aborted || request.aborted) controller.abort(abortReason(own.aborted ? own : request));
  else {
    own.addEventListener('abort', forward(own), { once: true });
    request.addEventListener('abort', forward(request), { once: true });
  }
  return controller.signal;
}

/** Why `value` is not a fact the guard can keep, or undefined when it is one. */
function factProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `expected a fact object, got ${String(value)}`;
  const { key, value: text } = value as { key?: unknown; value?: unknown };
  if (typeof key !== 'string' || key.trim() === '') return 'a fact needs a non-empty string key';
  if (typeof text !== 'string' || text.trim() === '') return `fact ${key}: needs a non-empty string value`;
  return undefined;
}

/**
 * The usable facts of an extraction's answer: objects with a non-empty string `key` and `value`; an
 * unknown `category` becomes `other`, a `span` that is not a string is dropped.
 */
export function usableFacts(answer: unknown): { facts: ExtractedFact[]; dropped: DroppedFacts | undefined } {
  if (!Array.isArray(answer)) {
    const reason = `expected an array of facts, got ${answer === null ? 'null' : typeof answer}`;
    return { facts: [], dropped: answer === undefined ? undefined : { count: 1, reason } };
  }
  const facts: ExtractedFact[] = [];
  let dropped: DroppedFacts | undefined;
  for (const item of answer) {
    const problem = factProblem(item);
    if (problem !== undefined) {
      dropped = { count: (dropped?.count ?? 0) + 1, reason: dropped?.reason ?? problem };
      continue;
    }
    const { key, value, category, span } = item as ExtractedFact;
    facts.push({
      key,
      value,
      category: CATEGORIES.has(category) ? category : ('other' satisfies FactCategory),
      ...(typeof span === 'string' ? { span } : {}),
    });
  }
  return { facts, dropped };
}

/**
 * `tools` bound to a request's `signal`: each call gets the signal (combined with its own), its
 * answer is given up on once the signal fires, and an extraction's answer keeps only usable facts
 * (`onDroppedFacts` hears about the rest).
 */
export function boundToRequest(
  tools: ContextTools,
  signal: AbortSignal | undefined,
  onDroppedFacts: ((dropped: DroppedFacts) => void) | undefined,
): ContextTools {
  return {
    specificationVersion: 'v1',
    async summarize(request: SummarizeRequest): Promise<string> {
      const combined = eitherSignal(request.signal, signal);
      throwIfAborted(combined);
      const call = { ...request, ...(combined ? { signal: combined } : {}) };
      return untilAborted(
        Promise.resolve().then(() => tools.summarize(call)),
        combined,
      );
    },
    async extractFacts(request: ExtractFactsRequest): Promise<ExtractedFact[]> {
      const combined = eitherSignal(request.signal, signal);
      throwIfAborted(combined);
      const call = { ...request, ...(combined ? { signal: combined } : {}) };
      const answer = await untilAborted(
        Promise.resolve().then(() => tools.extractFacts(call)),
        combined,
      );
      const { facts, dropped } = usableFacts(answer);
      if (dropped) onDroppedFacts?.(dropped);
      return facts;
    },
  };
}
