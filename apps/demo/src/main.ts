/**
 * `pnpm demo`: a small, real tour of what ctxguard has today. It loads a bundled agent
 * conversation, converts it to OpenAI Chat, Anthropic Messages and AI SDK messages and back,
 * counts its tokens, and checks it against several models' context windows.
 */
import { readFile } from 'node:fs/promises';
import { type Message, parseMessages } from '@ctxguard/core';
import {
  fromAISDK,
  fromAnthropic,
  fromOpenAIChat,
  toAISDK,
  toAnthropic,
  toOpenAIChat,
} from '@ctxguard/formats';
import { createModelCatalog } from '@ctxguard/models';
import { countConversation, disposeCounter } from './count.ts';

const sample = JSON.parse(await readFile(new URL('./sample-conversation.json', import.meta.url), 'utf8')) as {
  system: string;
  messages: unknown[];
};
const messages = parseMessages([{ role: 'system', content: sample.system }, ...sample.messages]);

console.log(
  'ctxguard demo — the full demo app (guard, compaction, rewind) is coming; this is what exists today.\n',
);
console.log(
  `Sample conversation: ${messages.length} messages (system, user, assistant with tool calls, tool results, an image).\n`,
);

const sameContent = (a: Message[], b: Message[]): boolean =>
  JSON.stringify(strip(a)) === JSON.stringify(strip(b));
// Provider formats do not carry usage or image dimensions; compare what they can carry.
function strip(list: Message[]): unknown[] {
  return list.map((message) => ({
    role: message.role,
    content:
      typeof message.content === 'string'
        ? message.content
        : message.content.map((part) => ({ ...part, width: undefined, height: undefined })),
  }));
}

console.log('Format round-trips (core → provider format → core):');
const losses: string[] = [];
const onLoss = (loss: { message: string }) => void losses.push(loss.message);
const openai = toOpenAIChat(messages, { onLoss });
const anthropic = toAnthropic(messages, { onLoss });
const aiSdk = toAISDK(messages, { onLoss });
const rows: [string, number, boolean][] = [
  ['OpenAI Chat Completions', openai.length, sameContent(messages, fromOpenAIChat(openai))],
  ['Anthropic Messages', anthropic.messages.length, sameContent(messages, fromAnthropic(anthropic))],
  ['Vercel AI SDK', aiSdk.length, sameContent(messages, fromAISDK(aiSdk))],
];
for (const [format, count, same] of rows) {
  console.log(
    `  ${format.padEnd(24)} ${String(count).padStart(2)} messages  ${same ? 'round-trips intact' : 'differs (see notes)'}`,
  );
}
for (const loss of new Set(losses)) console.log(`  note: ${loss}`);

const catalog = createModelCatalog();
const targets: [string, string][] = [
  ['openai', 'gpt-4o'],
  ['openai', 'gpt-4'],
  ['anthropic', 'claude-sonnet-4-5'],
  ['google-ai', 'gemini-2.5-flash'],
  ['mistral', 'mistral-small-latest'],
];
console.log('\nAgainst model windows (output reserve per reference rule):');
for (const [provider, model] of targets) {
  const info = catalog.get(provider, model);
  const { tokens, accuracy } = await countConversation(messages, provider, model);
  const available = catalog.getAvailableInputTokens(provider, model);
  const share = ((tokens / available) * 100).toFixed(3);
  console.log(
    `  ${`${provider}/${model}`.padEnd(32)} ${String(tokens).padStart(5)} tokens (${accuracy}, ${info.tokenizer.strategy})  of ${available.toLocaleString('en-US')} available = ${share}%`,
  );
}
disposeCounter();
