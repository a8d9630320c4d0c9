import { HookBus } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { ContextGuard } from '@ctxguard/guard';
import { ContextMeasurer } from '@ctxguard/measurer';
import { ModelCatalog } from '@ctxguard/models';
import { KeepRecentStrategy } from './src/keep-recent-strategy.ts';

const hooks = new HookBus();
const measurer = new ContextMeasurer({ hooks, catalog: new ModelCatalog(), contextLimit: 4_000 });
const strategies = { recent: new KeepRecentStrategy({ keepTurns: 2 }) };
const guard = new ContextGuard({ hooks, measurer, strategies, defaultStrategy: 'recent' });

const history = new InMemoryConversationHistory();
history.append({ role: 'system', content: 'You answer questions about our build.' });
for (let turn = 1; turn <= 12; turn++) {
  history.append({ role: 'user', content: `Question ${turn}: ${'why is the build slow? '.repeat(40)}` });
  await guard.fit({ provider: 'openai', model: 'gpt-4o', history }); // compacts when the window fills
  history.append({ role: 'assistant', content: `Answer ${turn}: ${'the cache was cold. '.repeat(40)}` });
}

const sent = history.messages();
console.log(sent.map((message) => message.role).join(' ')); // system user user user assistant user assistant user assistant — the prompt, the task, the marker, three turns
console.log(String(sent[3]?.content).slice(0, 12)); // Question 10: — the oldest turn still sent
console.log(history.compactions().length); // 3 — three drops, each one rewindable

for (let records = history.compactions(); records.length > 0; records = history.compactions())
  history.rewind(records[0]!.id);
console.log(history.messages().length); // 25 — every message is back
measurer.destroy();
