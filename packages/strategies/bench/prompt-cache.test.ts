import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import {
  anthropicCachePrices,
  cachedPrefixTokens,
  cachePriceModel,
  canonicalJson,
  openAiCachePrices,
  requestCost,
  serializeRequest,
  sharedPrefix,
  startsWithPrevious,
} from './prompt-cache.ts';

const system: Message = { role: 'system', content: 'You are a coding agent.' };
const ask: Message = { role: 'user', content: 'Fix packages/core/src/hooks.ts please.' };
const reply: Message = { role: 'assistant', content: 'Done: one import was missing.' };

describe('canonicalJson and serializeRequest', () => {
  it('give equal bytes for equal values whatever the key order, and leave undefined fields out', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe(
      canonicalJson({ a: { d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
    const reordered = { content: reply.content, role: reply.role } as Message;
    expect(serializeRequest([system, reordered])).toEqual(serializeRequest([system, reply]));
    expect(serializeRequest([system]).every((line) => line.endsWith('\n'))).toBe(true);
  });
});

describe('prefix of the previous request', () => {
  const first = serializeRequest([system, ask]);

  it('holds when the next request only appends, and breaks when an earlier message changed or went', () => {
    expect(startsWithPrevious(first, serializeRequest([system, ask, reply]))).toBe(true);
    expect(startsWithPrevious(first, first)).toBe(true);
    const edited = { ...ask, content: `${ask.content as string} Now.` };
    expect(startsWithPrevious(first, serializeRequest([system, edited, reply]))).toBe(false);
    expect(startsWithPrevious(first, serializeRequest([system]))).toBe(false);
  });

  it('counts the equal leading messages and the matching bytes of the first different one', () => {
    const edited: Message = { role: 'user', content: 'Fix packages/core/src/index.ts please.' };
    const shared = sharedPrefix(first, serializeRequest([system, edited]));
    expect(shared.messages).toBe(1);
    expect(shared.partialBytes).toBe(first[1]!.indexOf('hooks'));
  });
});

describe('cachedPrefixTokens', () => {
  const previous = serializeRequest([system, ask, reply]);
  const next = serializeRequest([system, ask, reply, ask]);
  const tokens = [1000, 500, 300, 500];
  const noMinimum = (wholeMessages: boolean) =>
    cachePriceModel({
      name: 't',
      cacheWrite: 1,
      cacheRead: 0.5,
      minPrefixTokens: 0,
      prefixStep: 1,
      wholeMessages,
    });

  it('is the tokens of the shared whole messages, none for a first request', () => {
    expect(cachedPrefixTokens(undefined, next, tokens, noMinimum(true))).toBe(0);
    expect(cachedPrefixTokens(previous, next, tokens, noMinimum(true))).toBe(1800);
  });

  it('adds the matching share of a partly equal message only when the model caches below message boundaries', () => {
    const edited = serializeRequest([system, { role: 'user', content: 'Fix packages/core/src/x.ts' }]);
    expect(cachedPrefixTokens(previous, edited, [1000, 500], noMinimum(true))).toBe(1000);
    const partial = cachedPrefixTokens(previous, edited, [1000, 500], noMinimum(false));
    expect(partial).toBeGreaterThan(1000);
    expect(partial).toBeLessThan(1500);
  });

  it('caches nothing under the shortest cached prefix and cuts to the steps', () => {
    expect(cachedPrefixTokens(previous, next, [600, 300, 100, 50], anthropicCachePrices)).toBe(0);
    expect(cachedPrefixTokens(previous, next, tokens, anthropicCachePrices)).toBe(1800);
    expect(cachedPrefixTokens(previous, next, tokens, openAiCachePrices())).toBe(1792);
  });
});

describe('requestCost', () => {
  it('prices Anthropic reads at 0.1× and the rest as cache writes at 1.25×', () => {
    expect(requestCost(10_000, 8_000, anthropicCachePrices)).toBeCloseTo(8_000 * 0.1 + 2_000 * 1.25);
    expect(requestCost(10_000, 0, anthropicCachePrices)).toBe(12_500);
  });

  it('prices OpenAI cached input at its share with no write premium, and short requests at the base price', () => {
    expect(requestCost(10_000, 8_000, openAiCachePrices(0.25))).toBe(8_000 * 0.25 + 2_000);
    expect(requestCost(500, 0, anthropicCachePrices)).toBe(500);
    expect(requestCost(1_000, 5_000, openAiCachePrices())).toBe(500);
  });

  it('rejects price models outside the documented ranges, naming the field', () => {
    expect(() => openAiCachePrices(0.6)).toThrow(/cacheRead/);
    expect(() =>
      cachePriceModel({
        name: 'x',
        cacheWrite: 1,
        cacheRead: -1,
        minPrefixTokens: 0,
        prefixStep: 1,
        wholeMessages: true,
      }),
    ).toThrow(/cacheRead/);
  });
});
