import {
  countToolPairViolations,
  createOfflineContextTools,
  frozenPrefixEnd,
  openToolRoundStart,
  redactSecrets,
} from '@ctxguard/compactor';
import {
  type ContextStrategy,
  type ContextTools,
  type ConversationHistory,
  type HistoryEntry,
  HookBus,
  type Message,
  messageText,
  type ReactContext,
  type StrategyDecision,
} from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextGuard, StrategyToolsImpl, sendableView } from '@ctxguard/guard';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { findJsonValueIssue, type JsonValueIssue } from '@ctxguard/shared';
import type { KitStep } from './kit-conversation.js';
import { isCompactionMessage } from './message-kinds.js';

/** How the suite wires the guard around the strategy under test. */
export interface KitSettings {
  window: number;
  maxCompactRetries: number;
  criticalFloor: number;
  provider: string;
  model: string;
  contextTools: ContextTools | undefined;
}

/** Everything one run saw: broken invariants (empty when all held) and what happened. */
export interface KitReport {
  violations: string[];
  requests: number;
  reactions: number;
  /** Most reactions within one request. */
  maxReactions: number;
  compactions: number;
  aborted: number;
}

const ACTIONS = new Set(['none', 'compacted', 'warn', 'decline']);

function textOf(message: Message | undefined): string {
  if (message === undefined) return '';
  try {
    return messageText(message);
  } catch {
    return '';
  }
}

/** JSON with object keys sorted, so two values compare by content only. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    const record = inner as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, record[key]]),
    );
  });
}

function jsonIssue(issue: JsonValueIssue, root: string): string {
  return `${[root, ...issue.path].join('.')} ${issue.reason}`;
}

/** What is wrong with a decision's shape, if anything. */
export function decisionProblem(decision: unknown): string | undefined {
  const action = (decision as StrategyDecision | undefined)?.action;
  if (typeof action !== 'string' || !ACTIONS.has(action))
    return `returned ${JSON.stringify(decision)}, not a StrategyDecision`;
  if (action === 'warn' && typeof (decision as { message?: unknown }).message !== 'string')
    return 'returned warn without a message';
  if (action === 'decline' && typeof (decision as { reason?: unknown }).reason !== 'string')
    return 'returned decline without a reason';
  return undefined;
}

/** Problems with a history after a strategy acted: split tool pairs, a system prompt lost or changed. */
export function historyProblems(history: ConversationHistory, systemPrompt: string | undefined): string[] {
  const problems: string[] = [];
  const view = history.messages();
  const violations = countToolPairViolations(view);
  if (violations > 0) problems.push(`${violations} tool call(s)/result(s) left without their pair`);
  if (systemPrompt !== undefined && (view[0]?.role !== 'system' || textOf(view[0]) !== systemPrompt))
    problems.push('the system prompt is no longer the first message as the app sent it');
  return problems;
}

/** The signature or encrypted data of a signed or redacted reasoning part; undefined for any other part. */
function signedKey(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const { type, signature, redactedData } = part as Record<string, unknown>;
  if (type !== 'reasoning') return undefined;
  if (typeof signature === 'string') return signature;
  return typeof redactedData === 'string' ? redactedData : undefined;
}

function signedKeysOf(message: Message): string[] {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return [];
  return message.content.flatMap((part) => {
    const key = signedKey(part);
    return key === undefined ? [] : [key];
  });
}

/** The messages before a point of a request, as one comparable string. */
export function prefixKey(messages: readonly Message[]): string {
  return messages.map(canonicalJson).join('\n');
}

/**
 * Signed or redacted reasoning blocks of a request whose preceding messages are not those they were
 * made on (`madeOn(key)`: the {@link prefixKey} of the request the model answered with them):
 * providers reject such a block once anything before it changed.
 */
export function staleSignedReasoning(
  messages: readonly Message[],
  madeOn: (key: string) => string | undefined,
): number {
  let stale = 0;
  const texts = messages.map(canonicalJson);
  messages.forEach((message, index) => {
    for (const key of signedKeysOf(message)) {
      if (madeOn(key) !== texts.slice(0, index).join('\n')) stale++;
    }
  });
  return stale;
}

function callIds(message: Message | undefined): string {
  if (message?.role !== 'assistant' || !Array.isArray(message.content)) return '';
  return message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])).join(',');
}

/**
 * True when the request's final user turn answers tool calls whose assistant turn does not start
 * with the signed reasoning it has in `original`: Anthropic requires the final assistant turn of a
 * tool loop to start with its thinking block (user messages after the results are part of that turn).
 */
export function finalTurnWithoutThinking(
  messages: readonly Message[],
  original: readonly Message[],
): boolean {
  const opener = messages[openToolRoundStart(messages)];
  if (opener === undefined) return false;
  const ids = callIds(opener);
  const source = original.findLast((message) => ids !== '' && callIds(message) === ids);
  if (source === undefined || signedKeysOf(source).length === 0) return false;
  const first = Array.isArray(opener.content) ? opener.content[0] : undefined;
  return signedKey(first) === undefined;
}

/**
 * True when the conversation opens with a task (the user's message right after the system prompt)
 * and the request does not carry its words right after the system prompt: every request restates
 * the task, whatever a strategy hid (a provider compaction item stands for it where one was sent).
 */
export function taskLeftOut(messages: readonly Message[], original: readonly Message[]): boolean {
  const task = original[leadingSystemCount(original)];
  if (task?.role !== 'user' || isCompactionMessage(task) || frozenPrefixEnd(messages) > 0) return false;
  const words = Array.isArray(task.content)
    ? task.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
    : task.content;
  const first = messages[leadingSystemCount(messages)];
  if (first?.role !== 'user') return true;
  // Only attachments: the task itself, whole.
  return words === ''
    ? canonicalJson(first.content) !== canonicalJson(task.content)
    : !textOf(first).includes(words);
}

function leadingSystemCount(messages: readonly Message[]): number {
  let count = 0;
  while (messages[count]?.role === 'system' && !isCompactionMessage(messages[count]!)) count++;
  return count;
}

/** Rewinds every compaction still recorded and says whether the history is the original again. */
export function rewindProblem(
  history: ConversationHistory,
  original: readonly Message[],
): string | undefined {
  for (let left = 10_000, records = history.compactions(); records.length > 0 && left > 0; left--) {
    history.rewind(records[0]!.id);
    records = history.compactions();
  }
  if (canonicalJson(history.messages()) === canonicalJson(original)) return undefined;
  return 'rewinding every compaction does not give back the original conversation';
}

/**
 * Wraps a strategy so each reaction is checked as it happens: a valid decision, a state that stays
 * JSON, no throw, and a `compacted` that really lowered the count of the effective history.
 */
function checkedStrategy(
  strategy: ContextStrategy,
  history: ConversationHistory,
  report: (problem: string) => void,
  onReact: () => void,
): ContextStrategy {
  return {
    specificationVersion: 'v1',
    triggers: strategy.triggers,
    async react(ctx: ReactContext): Promise<StrategyDecision> {
      onReact();
      const where = `at ${ctx.level} (attempt ${ctx.attempt}, ${Math.round(ctx.percentage * 100)}%)`;
      const before = ctx.tools.measure(history.messages());
      let decision: StrategyDecision;
      try {
        decision = await strategy.react(ctx);
      } catch (error) {
        report(`threw ${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        throw error;
      }
      const problem = decisionProblem(decision);
      if (problem) report(`${problem} ${where}`);
      if (decision?.action === 'compacted') {
        const after = ctx.tools.measure(history.messages());
        if (after >= before) report(`said compacted ${where} but the count went from ${before} to ${after}`);
      }
      const issue = findJsonValueIssue(ctx.state);
      if (issue) report(`left ctx.state that is not plain JSON ${where}: ${jsonIssue(issue, 'ctx.state')}`);
      return decision;
    },
  };
}

/**
 * Whether a request (the entries of the effective view it was made from) holds only what every
 * request carries: the system prompt, the task (the first user message) and the newest step (the
 * last assistant message and what followed it, else the newest message). Strategies compact the
 * rest: a request of nothing else is sent whatever its size under the budget (an agent that fits
 * is not stopped). A summary or marker is never carried.
 */
export function onlyCarried(entries: readonly HistoryEntry[]): boolean {
  if (entries.some((entry) => entry.isTruncationMarker === true || isCompactionMessage(entry.message)))
    return false;
  let index = 0;
  while (index < entries.length && entries[index]!.message.role === 'system') index++;
  if (entries[index]?.message.role === 'user') index++;
  const lastAssistant = entries.findLastIndex((entry) => entry.message.role === 'assistant');
  return lastAssistant === -1 ? entries.length - index <= 1 : lastAssistant <= index;
}

/** The pieces an app wires: a bus, the measurer with a small window, the guard with one strategy. */
function wire(strategy: ContextStrategy, settings: KitSettings) {
  const hooks = new HookBus();
  const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog(), contextLimit: settings.window });
  const guard = new ContextGuard({
    hooks,
    measurer,
    strategies: { tested: strategy },
    defaultStrategy: 'tested',
    maxCompactRetries: settings.maxCompactRetries,
    criticalFloor: settings.criticalFloor,
    ...(settings.contextTools ? { contextTools: settings.contextTools } : {}),
  });
  return { hooks, measurer, guard };
}

/** The input budget the measurer derives from the settings' window for their model. */
export async function kitInputBudget(settings: KitSettings): Promise<number> {
  const hooks = new HookBus();
  const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog(), contextLimit: settings.window });
  try {
    const { inputBudget } = await measurer.measure({
      provider: settings.provider,
      model: settings.model,
      messages: [],
    });
    return inputBudget ?? settings.window;
  } finally {
    measurer.destroy();
  }
}

/**
 * Plays `steps` through ContextMeasurer → ContextGuard.fit with `strategy` as an agent would
 * (append, send, repeat) and checks every invariant after every request and at the end.
 */
export async function runConversation(
  strategy: ContextStrategy,
  steps: readonly KitStep[],
  settings: KitSettings,
): Promise<KitReport> {
  const history = new InMemoryConversationHistory();
  const result: KitReport = {
    violations: [],
    requests: 0,
    reactions: 0,
    maxReactions: 0,
    compactions: 0,
    aborted: 0,
  };
  let reactions = 0;
  let request = 0;
  const report = (problem: string) => result.violations.push(`request ${request}: strategy ${problem}`);
  const checked = checkedStrategy(strategy, history, report, () => {
    reactions++;
  });
  const { hooks, measurer, guard } = wire(checked, settings);
  hooks.on('onCompaction', () => {
    result.compactions++;
  });
  const original: Message[] = [];
  // What the app holds between requests: the last request sent and what came after it. Each signed
  // block is made on what preceded it there (the model answered that request).
  let basis: Message[] = [];
  const madeOn = new Map<string, string>();
  const systemPrompt = steps[0]?.messages[0]?.role === 'system' ? textOf(steps[0].messages[0]) : undefined;
  const { provider, model } = settings;
  try {
    for (const step of steps) {
      for (const message of step.messages) {
        history.append(message);
        original.push(message);
        for (const key of signedKeysOf(message)) if (!madeOn.has(key)) madeOn.set(key, prefixKey(basis));
        basis.push(message);
      }
      if (!step.send) continue;
      request++;
      reactions = 0;
      // As an app builds each request: the effective history without signed reasoning whose prefix changed.
      const event = await guard.fit({
        provider,
        model,
        messages: sendableView(history).messages,
        history,
      });
      result.requests++;
      result.reactions += reactions;
      result.maxReactions = Math.max(result.maxReactions, reactions);
      const problem = (text: string) => result.violations.push(`request ${request}: ${text}`);
      if (reactions > settings.maxCompactRetries + 1)
        problem(`${reactions} reactions in one call; the guard allows ${settings.maxCompactRetries + 1}`);
      for (const text of historyProblems(history, systemPrompt)) problem(text);
      if (event.declined !== undefined) {
        result.aborted++;
        continue;
      }
      if (canonicalJson(event.messages) !== canonicalJson(sendableView(history).messages))
        problem('the request sent is not the effective history');
      const stale = staleSignedReasoning(event.messages, (key) => madeOn.get(key));
      if (stale > 0)
        problem(
          `${stale} signed or redacted reasoning block(s) sent after messages that changed since it was made`,
        );
      if (taskLeftOut(event.messages, original))
        problem('the request does not carry the task right after the system prompt');
      if (finalTurnWithoutThinking(event.messages, original))
        problem('the request ends in a tool round whose assistant turn lost the thinking it started with');
      basis = event.messages.slice();
      if (reactions > 0) {
        const sent = await measurer.measure({ provider, model, messages: event.messages });
        const fraction = sent.percentage ?? 0;
        // Over the budget is never sent; the critical floor holds where a strategy had something to compact.
        const carried = onlyCarried(history.effectiveEntries());
        if (carried ? fraction > 1 : fraction >= settings.criticalFloor)
          problem(
            `sent at ${Math.round(fraction * 1000) / 10}% of the input budget after reacting, without declining (critical floor ${settings.criticalFloor * 100}%)`,
          );
      }
    }
    const issue = findJsonValueIssue(history.metadata);
    if (issue)
      result.violations.push(
        `the conversation metadata (guard and strategy state) is not plain JSON: ${jsonIssue(issue, 'metadata')}`,
      );
    const lost = rewindProblem(history, original);
    if (lost) result.violations.push(lost);
  } finally {
    measurer.destroy();
  }
  return result;
}

/** Problems of one reaction called directly (the guard never fires on an empty history). */
export async function reactDirectly(
  strategy: ContextStrategy,
  messages: readonly Message[],
  options: { level: string; percentage: number; attempt: number; inputBudget: number; window: number },
): Promise<string[]> {
  const history = new InMemoryConversationHistory();
  for (const message of messages) history.append(message);
  const tools = new StrategyToolsImpl({
    history,
    messages: history.messages(),
    tools: createOfflineContextTools(),
    redact: redactSecrets,
  });
  const where = `${options.level} (attempt ${options.attempt}, ${Math.round(options.percentage * 100)}%) on ${messages.length} message(s)`;
  const before = tools.measure(history.messages());
  let decision: StrategyDecision;
  try {
    decision = await strategy.react({
      ...options,
      current: Math.round(options.percentage * options.inputBudget),
      delta: Math.round(options.percentage * options.inputBudget),
      provider: 'openai',
      model: 'gpt-4o',
      tools,
      state: {},
    });
  } catch (error) {
    return [`threw at ${where}: ${error instanceof Error ? error.message : String(error)}`];
  }
  const problems: string[] = [];
  const shape = decisionProblem(decision);
  if (shape) problems.push(`${shape} at ${where}`);
  if (decision?.action === 'compacted' && tools.measure(history.messages()) >= before)
    problems.push(`said compacted at ${where} but nothing got smaller`);
  const systemPrompt = messages[0]?.role === 'system' ? textOf(messages[0]) : undefined;
  for (const text of historyProblems(history, systemPrompt)) problems.push(`${text} at ${where}`);
  const lost = rewindProblem(history, messages);
  if (lost) problems.push(`${lost} at ${where}`);
  return problems;
}
