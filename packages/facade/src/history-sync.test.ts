import { type Message, type MessageInput, messageSchema } from '@ctxguard/core';
import { InMemoryConversationHistory } from '@ctxguard/effective-history';
import { describe, expect, it } from 'vitest';
import { messagesToSend, OriginalsIndex, syncHistory } from './history-sync.js';

/** The app's messages from `from` up to `to`, validated as the facade does. */
const validating =
  (app: readonly unknown[]) =>
  (from: number, to = app.length) =>
    app.slice(from, to).map((message) => messageSchema.parse(message) as Message);

describe('syncHistory with an edited system prompt', () => {
  it('keeps a summary that speaks as the system right after the prompt when the app sends back the view', () => {
    const history = new InMemoryConversationHistory();
    history.appendMany([
      { role: 'system', content: 'You help. Today is day 1.' },
      { role: 'user', content: 'u0' },
      { role: 'assistant', content: 'a0' },
      { role: 'user', content: 'u1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'u2' },
    ]);
    history.spliceRange(1, 5, { role: 'system', content: 'Summary of u0 to a1.' });
    const index = OriginalsIndex.of(history);
    const prompt = { role: 'system', content: 'You help. Today is day 2.' };
    const app = [prompt, ...history.messages().slice(1), { role: 'assistant', content: 'a2' }];
    const outcome = syncHistory(history, app, index, { prefixCheck: 'sample', validate: validating(app) });
    expect(outcome).toMatchObject({ matchedBy: 'effective-view', appended: 1, removed: 0 });
    expect(history.compactions()).toHaveLength(1);
    expect(history.messages().map((message) => message.content)).toEqual([
      'You help. Today is day 2.',
      'Summary of u0 to a1.',
      'u2',
      'a2',
    ]);
  });

  it('forks when a stored system message is hidden by a compaction (a rewrite of the prompt itself)', () => {
    const history = new InMemoryConversationHistory();
    history.appendMany([
      { role: 'system', content: 'You help. Today is day 1.' },
      { role: 'user', content: 'u0' },
    ]);
    history.spliceRange(0, 1, { role: 'system', content: 'You help. Today is day 1.\n\nfacts' });
    const index = OriginalsIndex.of(history);
    const app = [
      { role: 'system', content: 'You help. Today is day 2.' },
      { role: 'user', content: 'u0' },
    ];
    const outcome = syncHistory(history, app, index, { prefixCheck: 'sample', validate: validating(app) });
    expect(outcome).toMatchObject({ matchedBy: 'originals', matched: 0, removed: 2, appended: 2 });
    expect(history.messages().map((message) => message.content)).toEqual(['You help. Today is day 2.', 'u0']);
  });
});

describe('messagesToSend', () => {
  it("keeps the app's cache breakpoint on a message put back behind a facts message", () => {
    const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const app = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'Fix the build.', providerOptions: cache },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'next' },
    ] as const;
    const history = new InMemoryConversationHistory();
    history.appendMany(app);
    const index = OriginalsIndex.of(history);
    // What `injectFacts('system-append')` records: the facts, then the task put back behind them.
    history.spliceRange(1, 2, [{ role: 'system', content: 'facts' }, app[1]]);
    const sent = messagesToSend(history, index, app).messages;
    expect(sent.map((message) => message.content)).toEqual([
      'You are an agent.',
      'facts',
      'Fix the build.',
      'ok',
      'next',
    ]);
    expect(sent[1]!.providerOptions).toBeUndefined();
    expect(sent[2]!.providerOptions).toEqual(cache);
  });

  it('gives no breakpoint of a message it hid to a marker written in its place', () => {
    const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const task: MessageInput = {
      role: 'user',
      content: [
        { type: 'text', text: 'Fix the build.' },
        { type: 'image', image: 'https://example.com/build.png' },
      ],
      providerOptions: cache,
    };
    const app: MessageInput[] = [
      { role: 'system', content: 'You are an agent.' },
      task,
      { role: 'user', content: 'next' },
    ];
    const history = new InMemoryConversationHistory();
    history.appendMany(app);
    const index = OriginalsIndex.of(history);
    // The task's own words, then a marker where its attachment was: the marker rewrites nothing.
    history.spliceRange(1, 2, [
      { role: 'user', content: 'Fix the build.' },
      { role: 'user', content: 'The attached image was set aside.' },
    ]);
    const sent = messagesToSend(history, index, app).messages;
    expect(sent.map((message) => message.providerOptions)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('syncHistory with an app that keeps its own history', () => {
  it('undoes no compaction far from a regenerated reply, though a summary group starts with a kept original', () => {
    const history = new InMemoryConversationHistory();
    const own: MessageInput[] = [{ role: 'system', content: 'sys' }];
    for (let i = 1; i <= 10; i++)
      own.push({ role: 'user', content: `u${i}` }, { role: 'assistant', content: `a${i}` });
    history.appendMany(own as Message[]);
    // A summary group that keeps a copy of the original in front, then a summary over it and more.
    history.spliceRange(1, 5, [
      { role: 'user', content: 'u1' },
      { role: 'user', content: 'Summary A.' },
    ]);
    history.spliceRange(1, 6, { role: 'user', content: 'Summary B.' });
    const app = [...own.slice(0, -1), { role: 'assistant', content: 'a10, again' }];
    const outcome = syncHistory(history, app, OriginalsIndex.of(history), {
      prefixCheck: 'full',
      validate: validating(app),
    });
    expect(outcome).toMatchObject({ matchedBy: 'originals', removed: 1, rewound: [] });
    expect(history.compactions()).toHaveLength(2);
  });
});
