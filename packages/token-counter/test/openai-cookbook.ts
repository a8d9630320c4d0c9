import type { Message } from '@ctxguard/core';

/**
 * Examples from the OpenAI cookbook "How to count tokens with tiktoken", whose API-reported
 * prompt_tokens are 124 (gpt-4o, o200k_base) and 129 (gpt-4, cl100k_base); with the weather
 * tool, 101 and 105.
 */
export const cookbookMessages: Message[] = [
  {
    role: 'system',
    content:
      'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.',
  },
  { role: 'system', name: 'example_user', content: 'New synergies will help drive top-line growth.' },
  {
    role: 'system',
    name: 'example_assistant',
    content: 'Things working well together will increase revenue.',
  },
  {
    role: 'system',
    name: 'example_user',
    content:
      "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
  },
  {
    role: 'system',
    name: 'example_assistant',
    content: "Let's talk later when we're less busy about how to do better.",
  },
  {
    role: 'user',
    content: "This late pivot means we don't have time to boil the ocean for the client deliverable.",
  },
];

/** The cookbook's one tool definition. */
export const weatherTool = {
  type: 'function',
  function: {
    name: 'get_current_weather',
    description: 'Get the current weather in a given location',
    parameters: {
      type: 'object',
      properties: {
        location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
        unit: {
          type: 'string',
          description: 'The unit of temperature to return',
          enum: ['celsius', 'fahrenheit'],
        },
      },
      required: ['location'],
    },
  },
};

/** The cookbook's messages for the tool example. */
export const weatherMessages: Message[] = [
  { role: 'system', content: 'You are a helpful assistant that can answer to questions about the weather.' },
  { role: 'user', content: "What's the weather like in San Francisco?" },
];
