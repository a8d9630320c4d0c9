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
  type SummarizeRequest,
  wellFormedFacts,
} from '@ctxguard/core';
import { abortReason, describeThrown, isContextTools, throwIfAborted } from '@ctxguard/shared';

/** What the `ContextTools` did that a compaction worked around, reported once per call. */
export interface ToolsProblem {
  /**
   * `facts_dropped`: an extraction answered entries that are not facts (left out);
   * `context_tools_failed`: a call threw (the compaction went on without its answer).
   */
  kind: 'facts_dropped' | 'context_tools_failed';
  /** How many entries were left out, or 1 for a call that threw. */
  count: number;
  /** Why the first entry was left out, or the method and the error of the call that threw. */
  reason: string;
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

/** The signals each combined signal of {@link eitherSignal} follows. */
const followed = new WeakMap<AbortSignal, readonly AbortSignal[]>();

/** Whether `signal` fires whenever `source` does (it is `source`, or a combination following it). */
function follows(signal: AbortSignal, source: AbortSignal): boolean {
  return signal === source || (followed.get(signal)?.some((from) => follows(from, source)) ?? false);
}

/**
 * A signal that fires when either does (the call's own, or the request's): the request's itself when
 * it already follows the call's. Once it fires it stops listening to both, so a signal the app
 * shares between requests is not left holding a listener per call.
 */
export function eitherSignal(
  own: AbortSignal | undefined,
  request: AbortSignal | undefined,
): AbortSignal | undefined {
  if (own === undefined || (request !== undefined && follows(request, own))) return request;
  if (request === undefined) return own;
  const controller = new AbortController();
  if (own.aborted || request.aborted) {
    controller.abort(abortReason(own.aborted ? own : request));
    return controller.signal;
  }
  const fromOwn = () => controller.abort(abortReason(own));
  const fromRequest = () => controller.abort(abortReason(request));
  own.addEventListener('abort', fromOwn, { once: true });
  request.addEventListener('abort', fromRequest, { once: true });
  controller.signal.addEventListener(
    'abort',
    () => {
      own.removeEventListener?.('abort', fromOwn);
      request.removeEventListener?.('abort', fromRequest);
    },
    { once: true },
  );
  followed.set(controller.signal, [own, request]);
  return controller.signal;
}

/**
 * The usable facts of an extraction's answer (the compactor's rule: a non-empty string `key` and
 * `value`, an unknown `category` filed under `other`); an answer that is not a list has none.
 */
export function usableFacts(answer: unknown): {
  facts: ExtractedFact[];
  dropped: Omit<ToolsProblem, 'kind'> | undefined;
} {
  if (Array.isArray(answer)) return wellFormedFacts(answer);
  const reason = `expected an array of facts, got ${answer === null ? 'null' : typeof answer}`;
  return { facts: [], dropped: answer === undefined ? undefined : { count: 1, reason } };
}

/**
 * `tools` bound to a request's `signal`: each call gets the signal (combined with its own), its
 * answer is given up on once the signal fires, and an extraction's answer keeps only usable facts.
 * `onProblem` hears about the facts left out and about every call that threw (not one the signal
 * cancelled): the compactor works around both, so nothing else would tell the app.
 */
export function boundToRequest(
  tools: ContextTools,
  signal: AbortSignal | undefined,
  onProblem: ((problem: ToolsProblem) => void) | undefined,
): ContextTools {
  /** `method` of `tools` with the request's signal combined in, given up on once that fires. */
  const call = async <R extends { signal?: AbortSignal | undefined }, T>(
    name: 'summarize' | 'extractFacts',
    method: (request: R) => Promise<T>,
    request: R,
  ): Promise<T> => {
    const combined = eitherSignal(request.signal, signal);
    throwIfAborted(combined);
    const withSignal = { ...request, ...(combined ? { signal: combined } : {}) };
    try {
      return await untilAborted(
        Promise.resolve().then(() => method(withSignal)),
        combined,
      );
    } catch (error) {
      if (!combined?.aborted)
        onProblem?.({ kind: 'context_tools_failed', count: 1, reason: `${name}: ${describeThrown(error)}` });
      throw error;
    }
  };
  return {
    specificationVersion: 'v1',
    origin: isContextTools(tools.origin) ? tools.origin : tools,
    ...(tools.windowTokens === undefined ? {} : { windowTokens: tools.windowTokens }),
    summarize: async (request: SummarizeRequest) => call('summarize', (r) => tools.summarize(r), request),
    async extractFacts(request: ExtractFactsRequest): Promise<ExtractedFact[]> {
      const answer = await call('extractFacts', (r) => tools.extractFacts(r), request);
      const { facts, dropped } = usableFacts(answer);
      if (dropped) onProblem?.({ kind: 'facts_dropped', ...dropped });
      return facts;
    },
  };
}
