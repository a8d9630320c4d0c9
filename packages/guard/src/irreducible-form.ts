import type { Message } from '@ctxguard/core';

/**
 * What is left of the newest message however far a strategy compacts it: a tool message with every
 * output emptied, a user message without the files and images attached to it (the last resort turns
 * them into a placeholder or a summary). The user's own words are irreducible.
 */
export function irreducibleForm(message: Message): Message {
  if (!Array.isArray(message.content)) return message;
  if (message.role === 'user')
    return {
      ...message,
      content: message.content.filter((part) => part?.type !== 'file' && part?.type !== 'image'),
    } as Message;
  if (message.role !== 'tool') return message;
  return {
    ...message,
    content: message.content.map((part) => {
      if (part?.type !== 'tool-result') return part;
      const { content: _parts, ...rest } = part;
      return { ...rest, output: '' };
    }),
  } as Message;
}
