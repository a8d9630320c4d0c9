import {
  ContextDeclinedError,
  createContextGuard,
  createOfflineContextTools,
  LayeredStrategy,
  type MessageInput,
  TruncateStrategy,
} from 'ctxguard';
import { describe, expect, it } from 'vitest';
import { agentTurn, seeded, toolPairsIntact } from './support/agent-conversation.ts';

const SYSTEM = 'You are a coding agent. Never delete files.';

/** An assistant's read of `name`.ts and its result: `lines` lines of generated source. */
function readFile(name: string, lines: number): MessageInput[] {
  const source = Array.from(
    { length: lines },
    (_, i) => `export const ${name}${i} = compute('${name}', ${i * 7919});`,
  ).join('\n');
  return [
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: name, toolName: 'read_file', input: { path: `${name}.ts` } },
      ],
    },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: name, toolName: 'read_file', output: source }],
    },
  ];
}

describe('prepare over a long agent conversation', () => {
  it('never returns over the budget, keeps pairs and the system prompt, and keeps compactions across calls', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 16_000 });
    const random = seeded(7);
    const history: MessageInput[] = [{ role: 'system', content: SYSTEM }];
    let previous: { messages: unknown[]; compacted: boolean } | undefined;
    let compactingCalls = 0;
    let quietAfterCompaction = 0;
    for (let turn = 0; turn < 120; turn++) {
      history.push(...agentTurn(random, turn, 300 + Math.floor(random() * 900)));
      const result = await guard.prepare({ conversationId: 'agent', messages: history });
      const { measurement, messages } = result;
      expect(measurement.current).toBeLessThanOrEqual(measurement.inputBudget!);
      expect(toolPairsIntact(messages)).toBe(true);
      expect(messages[0]).toMatchObject({ role: 'system' });
      expect(String(messages[0]!.content).startsWith(SYSTEM)).toBe(true);
      const compacted = result.actions.some((action) => action.type === 'compaction');
      if (compacted) compactingCalls++;
      if (previous?.compacted && !compacted) {
        // The next call sends the compacted prefix as it was, plus the new turn.
        quietAfterCompaction++;
        expect(messages.slice(0, previous.messages.length)).toEqual(previous.messages);
        expect(messages.length).toBe(previous.messages.length + 4);
      }
      previous = { messages, compacted };
    }
    expect(compactingCalls).toBeGreaterThan(3);
    expect(quietAfterCompaction).toBeGreaterThan(0);
    const stats = await guard.stats('agent');
    expect(stats.originalMessages).toBe(history.length);
    expect(stats.compactions.length).toBeGreaterThan(0);
    await guard.close();
  }, 60_000);

  it('keeps whole the results the agent just asked for, pruning the older ones first, and the last reply of a chat', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 30_000 });
    const agent: MessageInput[] = [{ role: 'user', content: 'Audit the three modules (PAY-991).' }];
    for (const [name, lines] of [
      ['alpha', 500],
      ['beta', 500],
      ['gamma', 900],
    ] as const)
      agent.push(...readFile(name, lines));
    const sent = await guard.prepare({ conversationId: 'agent', messages: agent });
    expect(sent.actions.map((action) => action.type)).toContain('compaction');
    expect(sent.messages.slice(-2)).toEqual(agent.slice(-2));
    expect(toolPairsIntact(sent.messages)).toBe(true);
    expect(JSON.stringify(sent.messages)).not.toContain(`alpha499 = compute('alpha', ${499 * 7919})`);

    const chat: MessageInput[] = [{ role: 'user', content: 'Plan the Postgres migration (BILL-4711).' }];
    for (let turn = 1; chat.length < 80; turn++)
      chat.push(
        {
          role: 'assistant',
          content: `Step ${turn}: copy orders_${turn} with pg_dump. ${'Keep the lag low. '.repeat(60)}`,
        },
        { role: 'user', content: `And step ${turn + 1}? ${'Explain it carefully. '.repeat(40)}` },
      );
    const answered = await guard.prepare({ conversationId: 'chat', messages: chat });
    expect(answered.actions.map((action) => action.type)).toContain('compaction');
    expect(answered.messages.slice(-2)).toEqual(chat.slice(-2));
    await guard.close();
  });

  it('keeps the newest result whole at every size that fits beside the older ones', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 30_000 });
    // From a newest read well under the landing to one past the halfway cap; 910 and 915 lines put
    // the fixed part just under the cap, where a landing clipped to the cap left the summary no room.
    for (const lines of [500, 700, 850, 900, 905, 910, 915, 920, 950, 1_000, 1_100]) {
      const messages: MessageInput[] = [
        { role: 'user', content: 'Audit the modules.' },
        ...readFile('a', 150),
        ...readFile('b', 150),
        ...readFile('c', 150),
        ...readFile('newest', lines),
      ];
      const sent = await guard.prepare({ conversationId: `cliff-${lines}`, messages });
      expect(sent.measurement.current).toBeLessThanOrEqual(sent.measurement.inputBudget!);
      expect(sent.messages.slice(-2)).toEqual(messages.slice(-2));
    }
    await guard.close();
  });

  it('sends the request the open tool round serves in every request, turn after turn', async () => {
    // Each turn a short request and a read of ~3,400 tokens in an 8,000-token window: the round
    // alone takes most of the room, so every compaction folds all but it into the summary.
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 8_000 });
    const messages: MessageInput[] = [{ role: 'user', content: 'Audit the modules one by one.' }];
    const missing: number[] = [];
    for (let turn = 1; turn <= 30; turn++) {
      const request = `Turn ${turn}: now read module m${turn}.`;
      messages.push({ role: 'user', content: request }, ...readFile(`m${turn}`, 260));
      const sent = await guard.prepare({ conversationId: 'rounds', messages });
      if (!sent.messages.some((message) => message.content === request)) missing.push(turn);
      expect(sent.messages[0]).toEqual(messages[0]);
      expect(toolPairsIntact(sent.messages)).toBe(true);
      messages.push({ role: 'assistant', content: `Module m${turn} is fine.` });
    }
    expect((await guard.stats('rounds')).compactions.length).toBeGreaterThan(5);
    expect(missing).toEqual([]);
    await guard.close();
  });

  it('a cancelled prepare rejects with the reason at once, even when the ContextTools ignore their signal, and stores nothing of it', async () => {
    let hang = true;
    const offline = createOfflineContextTools();
    const never = new Promise<never>(() => undefined);
    const tools = {
      specificationVersion: 'v1' as const,
      summarize: (request: Parameters<typeof offline.summarize>[0]) =>
        hang ? never : offline.summarize(request),
      extractFacts: (request: Parameters<typeof offline.extractFacts>[0]) =>
        hang ? never : offline.extractFacts(request),
    };
    // A strategy that summarizes through the tools (the default may fit without a summary).
    const strategy = new LayeredStrategy();
    const guard = createContextGuard({
      provider: 'openai',
      model: 'gpt-4o',
      contextLimit: 8_000,
      contextTools: tools,
      strategy,
    });
    const random = seeded(3);
    const history: MessageInput[] = [{ role: 'system', content: SYSTEM }];
    while (history.length < 60) history.push(...agentTurn(random, history.length, 900));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user cancelled')), 30);
    await expect(
      guard.prepare({ conversationId: 'cancel', messages: history, signal: controller.signal }),
    ).rejects.toThrow('user cancelled');
    hang = false;
    const after = await guard.prepare({ conversationId: 'cancel', messages: history });
    expect(after.appended).toBe(history.length);
    expect(after.measurement.current).toBeLessThanOrEqual(after.measurement.inputBudget!);
    await guard.close();
  });

  it('appends only what is new: an unchanged history stores nothing more', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const messages: MessageInput[] = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
    ];
    const first = await guard.prepare({ conversationId: 'c', messages });
    expect(first.appended).toBe(2);
    const again = await guard.prepare({ conversationId: 'c', messages: structuredClone(messages) });
    expect(again.appended).toBe(0);
    const more = await guard.prepare({
      conversationId: 'c',
      messages: [...messages, { role: 'user', content: 'and more' }],
    });
    expect(more.appended).toBe(1);
    expect((await guard.stats('c')).originalMessages).toBe(3);
    await guard.close();
  });

  it('concurrent calls for one conversation in one facade run one after another', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
    const random = seeded(2);
    const history: MessageInput[] = [];
    for (let turn = 0; turn < 5; turn++) history.push(...agentTurn(random, turn, 50));
    const results = await Promise.all(
      [8, 12, 16, 20].map((end) =>
        guard.prepare({ conversationId: 'race', messages: history.slice(0, end) }),
      ),
    );
    expect(results.map((result) => result.appended)).toEqual([8, 4, 4, 4]);
    expect((await guard.stats('race')).originalMessages).toBe(20);
    await guard.close();
  });

  it('cuts a paste that takes the request past its critical floor instead of declining, and keeps the task', async () => {
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o', contextLimit: 16_000 });
    const random = seeded(17);
    const words = 'ledger invoice webhook retry schema migration worker queue timeout refund'.split(' ');
    const prose = (count: number) =>
      Array.from({ length: count }, () => words[Math.floor(random() * words.length)]).join(' ');
    const task = `TASK-5: help me debug the nightly CI run. ${prose(30)}`;
    const history: MessageInput[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: task },
    ];
    for (let turn = 0; turn < 12; turn++) {
      history.push({ role: 'assistant', content: prose(200) });
      await guard.prepare({ conversationId: 'paste', messages: history });
      history.push({ role: 'user', content: prose(120) });
    }
    history.push({ role: 'assistant', content: 'Please paste the log.' });
    const probe = await guard.prepare({
      conversationId: 'probe',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const inputBudget = probe.measurement.inputBudget!;
    const lines: string[] = ['Here is the log:'];
    const paste = () => ({ role: 'user' as const, content: lines.join('\n') });
    while (
      guard.counter.estimateMessage(paste(), { provider: 'openai', model: 'gpt-4o' }) <
      0.97 * inputBudget
    ) {
      lines.push(`step ${lines.length}: ${prose(8)} exit=${Math.floor(random() * 3)}`);
    }
    history.push(paste());
    const result = await guard.prepare({ conversationId: 'paste', messages: history });
    const sent = result.messages.map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    );
    expect(sent[1]).toBe(task);
    // The prompt, the task and the paste alone were past the critical floor: the paste is cut, most
    // of it verbatim, rather than the request declined while it could fit.
    expect(sent.at(-1)).toMatch(/user message compacted from \d+ characters/);
    const kept = lines.filter((line) => sent.at(-1)!.includes(line)).length;
    expect(kept).toBeGreaterThan(lines.length / 2);
    expect(result.measurement.current).toBeLessThanOrEqual(inputBudget);
    await guard.close();
  });

  it('declines with the sizes when the newest message alone cannot fit', async () => {
    const guard = createContextGuard({
      provider: 'openai',
      model: 'gpt-4o',
      contextLimit: 2_000,
      strategy: new TruncateStrategy({ recentCount: 2 }),
    });
    const huge = 'lorem ipsum dolor '.repeat(2_000);
    const error = await guard
      .prepare({ conversationId: 'big', messages: [{ role: 'user', content: huge }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ContextDeclinedError);
    const declined = error as ContextDeclinedError;
    expect(declined.code).toBe('context_declined');
    expect(declined.current).toBeGreaterThan(declined.inputBudget!);
    expect(declined.window).toBe(2_000);
    await guard.close();
  });
});
