/**
 * `compactMessages` as a subject of the quality benchmark, with the ContextTools wrapped so the
 * summarize / extractFacts calls made through them are counted (they would be model calls with
 * model-backed tools; the compactor reads offline tools' facts from their origin directly).
 */
import { compactMessages, createOfflineContextTools } from '@ctxguard/compactor';
import type { ContextTools } from '@ctxguard/core';
import type { CompactionSubject } from './quality.ts';

/** `compactMessages` with offline tools (or `tools`, counted the same way). */
export function compactorSubject(
  name = 'compactMessages (offline tools)',
  makeTools: () => ContextTools = () => createOfflineContextTools(),
): CompactionSubject {
  return {
    name,
    async compact(messages, budgetTokens, env) {
      const inner = makeTools();
      let calls = 0;
      // A counting wrapper changes no answer and no cost: it names its origin, as the ContextTools
      // contract allows, so the compactor treats offline tools as offline.
      const tools: ContextTools = {
        specificationVersion: 'v1',
        origin: inner,
        summarize: (request) => {
          calls++;
          return inner.summarize(request);
        },
        extractFacts: (request) => {
          calls++;
          return inner.extractFacts(request);
        },
      };
      const result = await compactMessages(messages, {
        budgetTokens,
        counter: env.counter,
        countContext: env.ctx,
        contextTools: tools,
      });
      return { messages: result.messages, modelCalls: calls };
    },
  };
}
