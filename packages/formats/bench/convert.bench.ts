import { type MessageInput, parseMessages } from '@ctxguard/core';
import {
  fromAISDK,
  fromAnthropic,
  fromOpenAIChat,
  toAISDK,
  toAnthropic,
  toOpenAIChat,
} from '@ctxguard/formats';
import type { BenchHarness } from '../../../bench/harness.ts';
import { agentConversation } from '../test/fixtures/agent-conversation.ts';

/** A long agent history: the fixture's ten turns repeated, tool call ids kept unique. */
function history(repeats: number): MessageInput[] {
  const out: MessageInput[] = [agentConversation[0] as MessageInput];
  for (let r = 0; r < repeats; r++) {
    const turn = JSON.stringify(agentConversation.slice(1)).replaceAll('"toolu_0', `"toolu_${r}_`);
    out.push(...(JSON.parse(turn) as MessageInput[]));
  }
  return out;
}

export async function run(h: BenchHarness): Promise<void> {
  const messages = history(h.quick ? 5 : 20);
  const core = parseMessages(messages);
  const openai = toOpenAIChat(core);
  const anthropic = toAnthropic(core);
  const sdk = toAISDK(core);
  const title = `${messages.length}-message agent history (images, parallel tools, reasoning)`;

  // Baseline: a structured clone, the floor for anything that copies the history.
  await h.compare(
    `validate + convert core → format, ${title}`,
    ['structuredClone', () => structuredClone(messages)],
    [
      ['parseMessages', () => parseMessages(messages)],
      ['toOpenAIChat', () => toOpenAIChat(core)],
      ['toAnthropic', () => toAnthropic(core)],
      ['toAISDK', () => toAISDK(core)],
    ],
  );
  await h.compare(
    `validate + convert format → core, ${title}`,
    ['structuredClone', () => structuredClone(messages)],
    [
      ['fromOpenAIChat', () => fromOpenAIChat(openai)],
      ['fromAnthropic', () => fromAnthropic(anthropic)],
      ['fromAISDK', () => fromAISDK(sdk)],
    ],
  );
}
