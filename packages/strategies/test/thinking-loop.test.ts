// An agent with extended thinking (Anthropic's rules) through ContextMeasurer → ContextGuard.fit
// with every built-in strategy: the model signs its thinking on exactly the request it answered, and
// the provider rejects a signed block whose preceding messages changed since, and a request ending
// in a tool round whose assistant turn does not start with its thinking.
import { countToolPairViolations } from '@ctxguard/compactor';
import { type ContextStrategy, HookBus, type Message } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextGuard, sendableView } from '@ctxguard/guard';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { describe, expect, it } from 'vitest';
import {
  CacheFriendlyStrategy,
  EngineStrategy,
  LayeredStrategy,
  LayoutStrategy,
  PipelineStrategy,
  RecompactStrategy,
  RelevanceStrategy,
  TruncateStrategy,
} from '../src/index.js';

const WINDOW = 12_000;

/** About `tokens` tokens of numbered source lines of `file`. */
function source(file: string, tokens: number): string {
  const lines = Math.max(1, Math.round(tokens / 14));
  return Array.from({ length: lines }, (_, i) => `${i}: export const ${file}_${i} = load(${i});`).join('\n');
}

/** What Anthropic would reject in `request`, given what each signature was made on. */
function rejections(request: readonly Message[], madeOn: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  const texts = request.map((message) => JSON.stringify(message));
  request.forEach((message, index) => {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) return;
    for (const part of message.content) {
      if (part.type !== 'reasoning' || part.signature === undefined) continue;
      if (madeOn.get(part.signature) !== texts.slice(0, index).join('\n'))
        problems.push(`messages.${index}: thinking blocks cannot be modified`);
    }
  });
  if (request.at(-1)?.role === 'tool') {
    const last = request.findLastIndex((message) => message.role === 'assistant');
    const first = request[last]?.content[0];
    if (typeof first !== 'object' || first.type !== 'reasoning')
      problems.push(`messages.${last}.content.0: a final assistant message must start with a thinking block`);
  }
  return problems;
}

describe.each<[string, () => ContextStrategy]>([
  ['TruncateStrategy', () => new TruncateStrategy()],
  ['LayeredStrategy', () => new LayeredStrategy()],
  ['PipelineStrategy', () => new PipelineStrategy()],
  ['EngineStrategy', () => new EngineStrategy()],
  ['LayoutStrategy', () => new LayoutStrategy()],
  ['RelevanceStrategy', () => new RelevanceStrategy()],
  ['CacheFriendlyStrategy', () => new CacheFriendlyStrategy()],
  ['RecompactStrategy', () => new RecompactStrategy()],
])('an agent with extended thinking through the guard with %s', (_name, create) => {
  it('sends no request Anthropic rejects, and keeps thinking made after a compaction', async () => {
    const hooks = new HookBus();
    const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog(), contextLimit: WINDOW });
    const guard = new ContextGuard({ hooks, measurer, strategies: { s: create() }, defaultStrategy: 's' });
    let compactions = 0;
    hooks.on('onCompaction', () => {
      compactions++;
    });
    const history = new InMemoryConversationHistory();
    history.append({ role: 'system', content: 'You are a coding agent. Think before each step.' });
    const madeOn = new Map<string, string>();
    let sent = 0;
    let signedAfterCompaction = 0;
    for (let step = 0; step < 120; step++) {
      if (step % 6 === 0) history.append({ role: 'user', content: `Task ${step / 6}: read the next files.` });
      // As an app builds each request: the view to send, just before the call.
      const request = await guard.fit({
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        messages: sendableView(history).messages,
        history,
      });
      if (request.declined !== undefined) continue;
      sent++;
      expect(rejections(request.messages, madeOn), `step ${step}`).toEqual([]);
      expect(countToolPairViolations(request.messages)).toBe(0);
      if (compactions > 0)
        signedAfterCompaction += request.messages.filter(
          (message) =>
            message.role === 'assistant' &&
            Array.isArray(message.content) &&
            message.content.some((part) => part.type === 'reasoning' && part.signature !== undefined),
        ).length;
      // The model answers the request as sent: its thinking is signed on exactly those messages.
      const signature = `sig-${step}`;
      madeOn.set(signature, request.messages.map((message) => JSON.stringify(message)).join('\n'));
      const file = `file${step}`;
      history.append({
        role: 'assistant',
        content: [
          { type: 'reasoning', text: `I should read ${file} next.`, signature },
          {
            type: 'tool-call',
            toolCallId: `call-${step}`,
            toolName: 'read_file',
            input: { path: `${file}.ts` },
          },
        ],
      });
      history.append({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `call-${step}`,
            toolName: 'read_file',
            output: source(file, step % 10 === 0 ? 3_000 : 700),
          },
        ],
      });
    }
    expect(compactions).toBeGreaterThan(3);
    expect(sent).toBeGreaterThan(100);
    expect(signedAfterCompaction).toBeGreaterThan(0);
    measurer.destroy();
  }, 120_000);
});
