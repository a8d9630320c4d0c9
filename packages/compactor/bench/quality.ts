/**
 * The quality measurement: runs compaction subjects over the corpus at fractions of each
 * transcript's tokens and reports tokens after, fit, facts kept (verbatim), tool-pair violations
 * and model calls. Shared with other packages' benchmarks (import by path).
 */
import type { Message } from '@ctxguard/core';
import {
  type CountContext,
  estimateConversation,
  HeuristicCounter,
  type TokenCounter,
} from '@ctxguard/token-counter';
import { dropOldestKeepingPairs, slidingWindow } from './baselines.ts';
import type { CorpusTranscript } from './corpus.ts';
import { type FactScore, findFacts, scoreFacts } from './fact-scorer.ts';

/** Where a subject counts and what it must fit in. */
export interface CompactionEnvironment {
  counter: TokenCounter;
  ctx: CountContext;
}

/** What a subject returns: the compacted messages and how many model (ContextTools) calls it made. */
export interface SubjectOutput {
  messages: Message[];
  modelCalls: number;
}

/** A compaction method under measurement. */
export interface CompactionSubject {
  name: string;
  compact(messages: Message[], budgetTokens: number, env: CompactionEnvironment): Promise<SubjectOutput>;
}

/** One subject on one transcript at one budget. */
export interface QualityCase {
  subject: string;
  transcript: string;
  messages: number;
  /** Budget as a fraction of the transcript's tokens. */
  fraction: number;
  tokensBefore: number;
  budgetTokens: number;
  tokensAfter: number;
  fits: boolean;
  facts: FactScore;
  violations: number;
  /** The leading system messages come out first and unchanged. */
  systemPromptKept: boolean;
  /** The task (the first user message) and the newest user message come out word for word. */
  requestsKept: boolean;
  modelCalls: number;
  /** Set when the subject threw; the case then counts as not fitting and keeping nothing. */
  error?: string;
}

/** One subject at one budget, over the whole corpus. */
export interface QualitySummary {
  subject: string;
  fraction: number;
  cases: number;
  fitting: number;
  /** Mean over transcripts of the share of facts kept. */
  meanFactsKept: number;
  /** The worst transcript's share of facts kept. */
  minFactsKept: number;
  /** Mean of tokensAfter / budgetTokens. */
  meanBudgetUse: number;
  violations: number;
  modelCalls: number;
  /** Cases whose output holds the task and the newest user message word for word. */
  requestsKept: number;
}

/** The budgets the benchmark uses: 1/2, 1/4 and 1/8 of each transcript's tokens. */
export const DEFAULT_FRACTIONS: readonly number[] = [1 / 2, 1 / 4, 1 / 8];

/** The counter and context the benchmark measures with (deterministic, no network). */
export function defaultEnvironment(): CompactionEnvironment {
  return { counter: new HeuristicCounter(), ctx: { provider: 'openai', model: 'gpt-4o' } };
}

/**
 * Tool-pair violations: tool calls with no result after them, results with no call before them,
 * and calls whose results do not directly follow the calling turn (providers reject all three).
 */
export function toolPairViolations(messages: readonly Message[]): number {
  let violations = 0;
  const open = new Set<string>();
  const called = new Set<string>();
  for (const message of messages) {
    const parts = typeof message.content === 'string' ? [] : message.content;
    if (message.role === 'tool') {
      for (const part of parts) {
        if (part.type !== 'tool-result') continue;
        if (open.has(part.toolCallId)) open.delete(part.toolCallId);
        else violations++;
      }
      continue;
    }
    // Any other message closes the previous turn: calls still open have lost their results.
    violations += open.size;
    open.clear();
    for (const part of parts) {
      if (part.type !== 'tool-call') continue;
      if (called.has(part.toolCallId)) violations++;
      called.add(part.toolCallId);
      open.add(part.toolCallId);
    }
  }
  return violations + open.size;
}

/** Whether `output` starts with `input`'s leading system messages, unchanged. */
export function keepsSystemPrompt(input: readonly Message[], output: readonly Message[]): boolean {
  for (let i = 0; i < input.length && input[i]!.role === 'system'; i++)
    if (JSON.stringify(output[i]) !== JSON.stringify(input[i])) return false;
  return true;
}

/** A message's text: its content string, or its first text part (`undefined` when it has none). */
export function userText(message: Message | undefined): string | undefined {
  if (message === undefined) return undefined;
  return typeof message.content === 'string'
    ? message.content
    : message.content.find((part) => part.type === 'text')?.text;
}

/** Whether the text of `input`'s first and newest user messages is in `output` word for word. */
export function keepsRequests(input: readonly Message[], output: readonly Message[]): boolean {
  const users = input.filter((message) => message.role === 'user');
  const sent = JSON.stringify(output);
  return [users[0], users.at(-1)].every((message) => {
    const text = userText(message);
    // Quoted: the whole text of a message or part, not a short reply found inside another.
    return text === undefined || sent.includes(JSON.stringify(text));
  });
}

/** The two baselines as subjects. */
export function baselineSubjects(): CompactionSubject[] {
  return [
    {
      name: 'drop-oldest (pairs kept)',
      compact: async (messages, budget, env) => ({
        messages: dropOldestKeepingPairs(messages, budget, env.counter, env.ctx),
        modelCalls: 0,
      }),
    },
    {
      name: 'sliding window alone',
      compact: async (messages, budget, env) => ({
        messages: slidingWindow(messages, budget, env.counter, env.ctx),
        modelCalls: 0,
      }),
    },
  ];
}

/** Runs every subject on every transcript at every fraction. */
export async function measureQuality(options: {
  corpus: readonly CorpusTranscript[];
  subjects: readonly CompactionSubject[];
  fractions?: readonly number[];
  env?: CompactionEnvironment;
}): Promise<QualityCase[]> {
  const env = options.env ?? defaultEnvironment();
  const fractions = options.fractions ?? DEFAULT_FRACTIONS;
  const cases: QualityCase[] = [];
  for (const transcript of options.corpus) {
    const facts = findFacts(transcript.messages);
    const tokensBefore = estimateConversation(env.counter, { messages: transcript.messages }, env.ctx);
    for (const fraction of fractions) {
      const budgetTokens = Math.floor(tokensBefore * fraction);
      for (const subject of options.subjects) {
        const base = {
          subject: subject.name,
          transcript: transcript.id,
          messages: transcript.messages.length,
        };
        try {
          const input = structuredClone(transcript.messages);
          const out = await subject.compact(input, budgetTokens, env);
          const tokensAfter = estimateConversation(env.counter, { messages: out.messages }, env.ctx);
          cases.push({
            ...base,
            fraction,
            tokensBefore,
            budgetTokens,
            tokensAfter,
            fits: tokensAfter <= budgetTokens,
            facts: scoreFacts(facts, out.messages),
            violations: toolPairViolations(out.messages),
            systemPromptKept: keepsSystemPrompt(transcript.messages, out.messages),
            requestsKept: keepsRequests(transcript.messages, out.messages),
            modelCalls: out.modelCalls,
          });
        } catch (error) {
          cases.push({
            ...base,
            fraction,
            tokensBefore,
            budgetTokens,
            tokensAfter: Number.NaN,
            fits: false,
            facts: scoreFacts(facts, []),
            violations: 0,
            systemPromptKept: false,
            requestsKept: false,
            modelCalls: 0,
            error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          });
        }
      }
    }
  }
  return cases;
}

/** Aggregates cases per subject and fraction, in subject then fraction order. */
export function summarizeQuality(cases: readonly QualityCase[]): QualitySummary[] {
  const groups = new Map<string, QualityCase[]>();
  for (const c of cases) {
    const key = `${c.subject}\u0000${c.fraction}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()].map((group) => {
    const ratios = group.map((c) => c.facts.ratio);
    return {
      subject: group[0]!.subject,
      fraction: group[0]!.fraction,
      cases: group.length,
      fitting: group.filter((c) => c.fits).length,
      meanFactsKept: ratios.reduce((a, b) => a + b, 0) / ratios.length,
      minFactsKept: Math.min(...ratios),
      meanBudgetUse: group.reduce((a, c) => a + c.tokensAfter / c.budgetTokens, 0) / group.length,
      violations: group.reduce((a, c) => a + c.violations, 0),
      modelCalls: group.reduce((a, c) => a + c.modelCalls, 0),
      requestsKept: group.filter((c) => c.requestsKept).length,
    };
  });
}

/** `1/4` for 0.25. */
export function fractionLabel(fraction: number): string {
  const denominator = Math.round(1 / fraction);
  return Math.abs(1 / denominator - fraction) < 1e-9 ? `1/${denominator}` : fraction.toFixed(2);
}
