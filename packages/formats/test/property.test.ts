import { InvalidInputError, type MessageInput, parseMessages } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fromAISDK,
  fromAnthropic,
  fromOpenAIChat,
  fromOpenAIResponses,
  toAISDK,
  toAnthropic,
  toOpenAIChat,
  toOpenAIResponses,
} from '../src/index.js';
import { anyConversation, type LoosePart, portableConversation } from './arbitraries.js';

const formats = {
  'OpenAI chat': { to: (m: MessageInput[]) => toOpenAIChat(m), from: fromOpenAIChat },
  Anthropic: { to: (m: MessageInput[]) => toAnthropic(m), from: fromAnthropic },
  'AI SDK': { to: (m: MessageInput[]) => toAISDK(m), from: fromAISDK },
  'OpenAI Responses': { to: (m: MessageInput[]) => toOpenAIResponses(m), from: fromOpenAIResponses },
} as const;

describe.each(Object.entries(formats))('%s', (_name, { to, from }) => {
  it('core → format → core is the identity on portable conversations', () => {
    fc.assert(
      fc.property(portableConversation, (conversation) => {
        expect(from(to(conversation))).toEqual(parseMessages(conversation));
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it('format → core → format is the identity on everything the converter writes', () => {
    fc.assert(
      fc.property(anyConversation, (conversation) => {
        const written = to(conversation);
        const back = from(written);
        // What `from*` returns is always valid core.
        expect(parseMessages(back)).toEqual(back);
        expect(to(back)).toEqual(written);
      }),
      { numRuns: 250 },
    );
  }, 60_000);
});

describe('parseMessages errors on generated conversations', () => {
  it('name the message index and the field that was broken', () => {
    fc.assert(
      fc.property(portableConversation, fc.nat(), fc.nat(), (conversation, pickMessage, pickPart) => {
        const broken = structuredClone(conversation) as unknown as { content: unknown }[];
        const index = pickMessage % broken.length;
        const target = broken[index] as { content: unknown };
        const parts = Array.isArray(target.content) ? (target.content as LoosePart[]) : [];
        const callIndex = parts.findIndex((p) => p.type === 'tool-call' || p.type === 'tool-result');
        let path: (string | number)[];
        if (callIndex >= 0 && pickPart % 2 === 0) {
          (parts[callIndex] as LoosePart)['toolCallId'] = pickPart;
          path = [index, 'content', callIndex, 'toolCallId'];
        } else {
          target.content = pickPart;
          path = [index, 'content'];
        }
        try {
          parseMessages(broken);
          return false;
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidInputError);
          expect((error as InvalidInputError).path).toEqual(path);
          const rendered = `messages[${index}].content${path.length > 2 ? `[${callIndex}].toolCallId` : ''}:`;
          expect((error as Error).message).toContain(rendered);
          return true;
        }
      }),
      { numRuns: 200 },
    );
  }, 60_000);
});
