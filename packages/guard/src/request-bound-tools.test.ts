import type { ExtractFactsRequest, SummarizeRequest } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { boundToRequest, type ToolsProblem, untilAborted, usableFacts } from './request-bound-tools.js';

describe('usableFacts', () => {
  it('keeps well-formed facts, files an unknown category under other and drops a bad span', () => {
    const { facts, dropped } = usableFacts([
      { key: 'db.port', value: '5432', category: 'number', span: 'port 5432' },
      { key: 'colour', value: 'teal', category: 'colour', span: 12 },
    ]);
    expect(facts).toEqual([
      { key: 'db.port', value: '5432', category: 'number', span: 'port 5432' },
      { key: 'colour', value: 'teal', category: 'other' },
    ]);
    expect(dropped).toBeUndefined();
  });

  it('leaves out entries that are not facts and says why the first was', () => {
    const { facts, dropped } = usableFacts([
      null,
      { key: 'k', value: ' ' },
      { key: 'ok', value: 'v', category: 'name' },
      5,
    ]);
    expect(facts).toEqual([{ key: 'ok', value: 'v', category: 'name' }]);
    expect(dropped).toEqual({ count: 3, reason: 'expected a fact object, got null' });
    expect(usableFacts({ facts: [] })).toEqual({
      facts: [],
      dropped: { count: 1, reason: 'expected an array of facts, got object' },
    });
    expect(usableFacts(undefined)).toEqual({ facts: [], dropped: undefined });
  });
});

describe('untilAborted', () => {
  it('settles as the promise does while the signal is quiet', async () => {
    const controller = new AbortController();
    await expect(untilAborted(Promise.resolve(3), controller.signal)).resolves.toBe(3);
    await expect(untilAborted(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow('no');
    await expect(untilAborted(Promise.resolve(4), undefined)).resolves.toBe(4);
  });

  it("rejects with the signal's reason when it fires first, or has fired", async () => {
    const controller = new AbortController();
    const never = new Promise<number>(() => undefined);
    const waiting = untilAborted(never, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await expect(untilAborted(Promise.resolve(1), controller.signal)).rejects.toThrow('stop');
  });
});

describe('boundToRequest', () => {
  const recording = () => {
    const seen: (AbortSignal | undefined)[] = [];
    const tools = {
      specificationVersion: 'v1' as const,
      summarize: async (request: SummarizeRequest) => {
        seen.push(request.signal);
        return 'summary';
      },
      extractFacts: async (request: ExtractFactsRequest) => {
        seen.push(request.signal);
        return [{ key: 'k', value: 'v', category: 'other' as const }, null] as never;
      },
    };
    return { tools, seen };
  };

  it("gives every call the request's signal, or one that fires with either when the call has its own", async () => {
    const { tools, seen } = recording();
    const request = new AbortController();
    const dropped: ToolsProblem[] = [];
    const bound = boundToRequest(tools, request.signal, (entry) => dropped.push(entry));
    await bound.summarize({ content: 'text', maxLength: 10 });
    expect(seen[0]).toBe(request.signal);
    const own = new AbortController();
    expect(await bound.extractFacts({ content: 'text', signal: own.signal })).toEqual([
      { key: 'k', value: 'v', category: 'other' },
    ]);
    expect(dropped).toEqual([
      { kind: 'facts_dropped', count: 1, reason: 'expected a fact object, got null' },
    ]);
    const combined = seen[1]!;
    expect(combined).not.toBe(request.signal);
    expect(combined.aborted).toBe(false);
    own.abort(new Error('call cancelled'));
    expect(combined.aborted).toBe(true);
    expect(combined.reason).toEqual(new Error('call cancelled'));
  });

  it("names the app's tools as their origin, however often they are bound", () => {
    const { tools } = recording();
    const once = boundToRequest(tools, new AbortController().signal, undefined);
    expect(once.origin).toBe(tools);
    expect(boundToRequest(once, undefined, undefined).origin).toBe(tools);
  });

  it('makes no call once the request was cancelled, and turns a throw into a rejection', async () => {
    const { tools, seen } = recording();
    const request = new AbortController();
    request.abort(new Error('cancelled'));
    const bound = boundToRequest(tools, request.signal, undefined);
    await expect(bound.summarize({ content: 'text', maxLength: 10 })).rejects.toThrow('cancelled');
    expect(seen).toHaveLength(0);
    const throwing = boundToRequest(
      {
        specificationVersion: 'v1',
        summarize: () => {
          throw new Error('sync');
        },
        extractFacts: async () => [],
      },
      undefined,
      undefined,
    );
    await expect(throwing.summarize({ content: 'text', maxLength: 10 })).rejects.toThrow('sync');
  });

  it('reports a call that threw, naming the method, but not one the request cancelled', async () => {
    const problems: ToolsProblem[] = [];
    const failing = {
      specificationVersion: 'v1' as const,
      summarize: async () => {
        throw new Error('401 invalid x-api-key');
      },
      extractFacts: () => new Promise<never>(() => undefined),
    };
    const request = new AbortController();
    const bound = boundToRequest(failing, request.signal, (problem) => problems.push(problem));
    await expect(bound.summarize({ content: 'text', maxLength: 10 })).rejects.toThrow('401');
    const pending = bound.extractFacts({ content: 'text' });
    request.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
    expect(problems).toEqual([
      { kind: 'context_tools_failed', count: 1, reason: 'summarize: Error: 401 invalid x-api-key' },
    ]);
  });
});
