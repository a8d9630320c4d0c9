import {
  type ContextStrategy,
  type ConversationHistory,
  HookBus,
  type Message,
  type ReactContext,
  type StrategyDecision,
  type TriggerLevel,
} from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { estimateConversation, HybridTokenCounter } from '@ctxguard/token-counter';
import {
  ContextGuard,
  type ContextGuardOptions,
  type FitOutcome,
  type GuardMeasureRequest,
} from '../../src/index.js';

export const PROVIDER = 'openai';
export const MODEL = 'gpt-4o';
const counter = new HybridTokenCounter();

/** Tokens of a request, by the hybrid counter. */
export function countTokens(messages: readonly Message[], system?: string): number {
  return estimateConversation(
    counter,
    { messages: [...messages], ...(system ? { system } : {}) },
    {
      provider: PROVIDER,
      model: MODEL,
    },
  );
}

/** A measurer for the guard built on the hybrid counter. */
export const testMeasurer = {
  measure: (request: GuardMeasureRequest) => countTokens(request.messages, request.system),
};

export const system = (text: string): Message => ({ role: 'system', content: text });
export const user = (text: string): Message => ({ role: 'user', content: text });
export const assistant = (text: string): Message => ({ role: 'assistant', content: text });

/** A tool round: an assistant call and its result. */
export function toolRound(
  id: string,
  tool: string,
  output: string,
  input: Record<string, string> = { id },
): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: tool, input }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: tool, output }] },
  ];
}

/** About `tokens` tokens of numbered lines mentioning `label`. */
export function filler(label: string, tokens: number): string {
  const line = `${label}: the build step printed a long line of ordinary words for the log`;
  const lines = Math.max(1, Math.round(tokens / 18.4));
  return Array.from({ length: lines }, (_, i) => `${line} ${i}`).join('\n');
}

/** A history holding `messages`. */
export function historyOf(
  messages: readonly Message[],
  metadata: Record<string, unknown> = {},
): ConversationHistory {
  const history = new InMemoryConversationHistory({ metadata });
  for (const message of messages) history.append(message);
  return history;
}

/** Lets `guard` fit `history` measured as the measurer would, at the given sizes. */
export async function fitOn(
  guard: ContextGuard,
  history: ConversationHistory,
  sizes: { window: number; inputBudget: number } = { window: 10_000, inputBudget: 8_000 },
  signal?: AbortSignal,
): Promise<FitOutcome> {
  const request = { provider: PROVIDER, model: MODEL, history, ...(signal ? { signal } : {}) };
  return guard.fit(request, { current: countTokens(history.messages()), ...sizes });
}

/** A strategy of the test's own: records every reaction, then runs `act`. */
export function recordingStrategy(
  triggers: TriggerLevel[],
  act: (ctx: ReactContext) => StrategyDecision | Promise<StrategyDecision> = () => ({ action: 'none' }),
): ContextStrategy & { calls: Omit<ReactContext, 'tools'>[] } {
  const calls: Omit<ReactContext, 'tools'>[] = [];
  return {
    specificationVersion: 'v1',
    triggers,
    calls,
    react(ctx) {
      const { tools: _tools, ...rest } = ctx;
      calls.push({ ...rest, state: structuredClone(ctx.state) });
      return act(ctx);
    },
  };
}

/** A guard on a fresh bus with warnings and compactions collected. */
export function createGuard(
  options: Omit<ContextGuardOptions, 'hooks' | 'measurer'> & Partial<ContextGuardOptions>,
) {
  const hooks = options.hooks ?? new HookBus();
  const warnings: { code: string; message: string; data?: Record<string, unknown> | undefined }[] = [];
  const compactions: {
    strategy: string;
    tokensBefore: number;
    tokensAfter: number;
    compactionIds: readonly string[];
  }[] = [];
  hooks.on('onWarning', (warning) => {
    warnings.push(warning);
  });
  hooks.on('onCompaction', (event) => {
    compactions.push(event);
  });
  const guard = new ContextGuard({ measurer: testMeasurer, ...options, hooks });
  return { hooks, guard, warnings, compactions };
}
