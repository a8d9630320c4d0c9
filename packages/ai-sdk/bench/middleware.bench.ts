/**
 * What the middleware adds to the facade on a long agent conversation when nothing needs compacting:
 * one `transformParams` of the whole provider-level prompt (rebuilt objects every call, as the AI SDK
 * builds them every step) against the facade's own `prepare` of the same messages already converted.
 * Run: pnpm bench ai-sdk.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { toAISDKPrompt } from '@ctxguard/formats';
import { MockLanguageModelV3 } from 'ai/test';
import { createContextGuard, ModelCatalog } from 'ctxguard';
import { agentConversation, hugeWindowModel } from '../../../bench/agent-conversation.ts';
import type { BenchHarness } from '../../../bench/harness.ts';
import { ctxguardMiddleware } from '../src/index.ts';

export async function run(h: BenchHarness): Promise<void> {
  const size = h.quick ? 500 : 2_000;
  const messages = agentConversation(size).filter((message) => message.role !== 'system');
  const prompt = toAISDKPrompt(messages) as LanguageModelV3Prompt;
  const copies = Array.from({ length: 8 }, () => structuredClone(prompt));
  const options = {
    provider: hugeWindowModel.provider,
    model: hugeWindowModel.model,
    catalog: new ModelCatalog({ models: [hugeWindowModel] }),
  };
  const facade = createContextGuard(options);
  const middleware = ctxguardMiddleware(options);
  const model = new MockLanguageModelV3({
    provider: hugeWindowModel.provider,
    modelId: hugeWindowModel.model,
  });
  let next = 0;
  const params = (): LanguageModelV3CallOptions => ({
    prompt: copies[next++ % copies.length] as LanguageModelV3Prompt,
    providerOptions: { ctxguard: { conversationId: 'bench' } },
  });
  await facade.prepare({ conversationId: 'bench', messages });
  await middleware.transformParams?.({ type: 'generate', params: params(), model });
  // As an app past its first second: the model's encoder loaded. A loop of in-memory calls never
  // gives the load a turn of the event loop, so it would time the estimates made while it loads.
  await Promise.all([facade, middleware.guardOf('bench')].map((guard) => guard?.measurer.warmCache()));
  await h.compare(
    `one call on a ${size.toLocaleString('en-US')}-message agent conversation, nothing to compact`,
    [
      'facade prepare (messages already converted)',
      () => facade.prepare({ conversationId: 'bench', messages }),
    ],
    [
      [
        'middleware transformParams (whole prompt, rebuilt objects)',
        () => middleware.transformParams?.({ type: 'generate', params: params(), model }),
      ],
    ],
  );
  await Promise.all([facade.close(), middleware.close()]);
}
