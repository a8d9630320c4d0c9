import { summaryBlock } from '@ctxguard/compactor';
import type { Message } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { assistant, historyOf, system, user } from '../test/support/harness.js';
import { sendableView, withHiddenTask } from './sendable-view.js';

const TASK: Message = {
  role: 'user',
  content: [
    { type: 'text', text: 'Migrate the billing service to the new API.' },
    { type: 'image', image: 'data:image/png;base64,iVBORw0KGgo=' },
  ],
};

const conversation = (): Message[] => [
  system('You are a coding agent.'),
  TASK,
  assistant('Reading the service first.'),
  user('Start with the invoices module.'),
  assistant('Done with invoices.'),
  user('Now the refunds module.'),
];

const summary = (count: number): Message => ({
  role: 'user',
  content: summaryBlock.render({ text: 'Invoices migrated.', messageCount: count }),
});

describe('the task in what is sent', () => {
  it('goes back after the system prompt, without its attachments, when a summary hid it', () => {
    const history = historyOf(conversation());
    history.spliceRange(1, 5, summary(4));
    const sent = sendableView(history).messages;
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'user', 'user']);
    expect(sent[1]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Migrate the billing service to the new API.' }],
    });
    expect(sent.slice(2)).toEqual(history.messages().slice(1));
    // The history is not changed: its view still leaves the task out, and a rewind shows it again once.
    expect(history.messages()).toHaveLength(3);
    history.rewind(history.compactions()[0]!.id);
    expect(sendableView(history).messages).toEqual(conversation());
  });

  it('goes back when the oldest messages were dropped behind a marker', () => {
    const history = historyOf(conversation());
    history.truncateRange(1, 3, { role: 'system', content: '<!-- ctxguard:truncated hidden=2 -->' });
    expect(withHiddenTask(history, history.messages())[1]).toMatchObject({ role: 'user' });
    expect(JSON.stringify(withHiddenTask(history, history.messages()))).toContain('Migrate the billing');
  });

  it('is not sent twice when the view shows it, or the message a compaction shortened it into', () => {
    const shown = historyOf(conversation());
    shown.spliceRange(2, 5, summary(3));
    const carrying = sendableView(shown).messages.filter((message) =>
      JSON.stringify(message).includes('Migrate the billing'),
    );
    expect(carrying).toHaveLength(1);
    const shortened = historyOf(conversation());
    shortened.spliceRange(1, 2, [user('[user message compacted: migrate billing to the new API]')]);
    expect(sendableView(shortened).messages).toEqual(shortened.messages());
  });

  it('is left alone when the conversation opened with a summary (its task is in it)', () => {
    const history = historyOf([system('You are a coding agent.'), summary(12), ...conversation().slice(2)]);
    history.spliceRange(1, 4, summary(15));
    expect(sendableView(history).messages).toEqual(history.messages());
  });
});
