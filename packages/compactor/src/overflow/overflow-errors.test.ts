import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  getContextOverflowProvider,
  isContextOverflowError,
  isRequestTooLargeError,
  parseOverflowTokens,
} from './overflow-errors.js';

const ANTHROPIC = 'prompt is too long: 208000 tokens > 200000 maximum';
const OPENAI =
  "This model's maximum context length is 128000 tokens. However, you requested 140000 tokens (130000 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.";

/** An error shaped like the AI SDK's `APICallError` (the fields it sets, built the way it builds them). */
function apiCallError(fields: {
  message: string;
  url?: string;
  statusCode?: number;
  responseBody?: string;
  data?: unknown;
  requestBodyValues?: unknown;
  cause?: unknown;
}): Error {
  const { message, cause, ...rest } = fields;
  const error = new Error(message, cause === undefined ? undefined : { cause });
  return Object.assign(error, { name: 'AI_APICallError', isRetryable: false, responseHeaders: {}, ...rest });
}

describe('accepted shapes', () => {
  test('strings, Error objects and objects with message / error / body / responseBody', () => {
    expect(isContextOverflowError(ANTHROPIC)).toBe(true);
    expect(isContextOverflowError(new Error(ANTHROPIC))).toBe(true);
    expect(isContextOverflowError({ message: ANTHROPIC })).toBe(true);
    expect(isContextOverflowError({ error: ANTHROPIC })).toBe(true);
    expect(isContextOverflowError({ error: { message: ANTHROPIC } })).toBe(true);
    expect(isContextOverflowError({ body: JSON.stringify({ error: { message: ANTHROPIC } }) })).toBe(true);
    expect(isContextOverflowError({ responseBody: JSON.stringify({ error: { message: OPENAI } }) })).toBe(
      true,
    );
    expect(isContextOverflowError({ message: 'Bad Request', data: { error: { message: OPENAI } } })).toBe(
      true,
    );
  });

  test('JSON inside a string, doubly encoded', () => {
    const inner = JSON.stringify({ error: { code: 400, message: OPENAI } });
    const outer = JSON.stringify({ error: { message: inner } });
    expect(isContextOverflowError(`Error: 400 ${outer}`)).toBe(true);
    expect(parseOverflowTokens(outer)).toEqual({
      requestedTokens: 140000,
      limitTokens: 128000,
      inputTokens: 130000,
    });
  });

  test('nested cause chains, cycles included', () => {
    const root = new Error('request failed', {
      cause: new Error('upstream', { cause: new Error(ANTHROPIC) }),
    });
    expect(isContextOverflowError(root)).toBe(true);
    const a: { message: string; cause?: unknown } = { message: 'outer' };
    const b = { message: 'middle', cause: a };
    a.cause = b;
    expect(isContextOverflowError(a)).toBe(false);
    const c: { message: string; cause?: unknown } = { message: 'outer', cause: { message: ANTHROPIC } };
    (c.cause as { cause?: unknown }).cause = c;
    expect(isContextOverflowError(c)).toBe(true);
  });

  test('the cause chain is read to a bounded depth', () => {
    const chain = (length: number): unknown => {
      let error: unknown = new Error(ANTHROPIC);
      for (let level = 1; level < length; level++) error = new Error(`wrapper ${level}`, { cause: error });
      return error;
    };
    expect(isContextOverflowError(chain(8))).toBe(true);
    expect(isContextOverflowError(chain(9))).toBe(false);
    let deep = chain(1);
    for (let level = 0; level < 10_000; level++) deep = { message: 'wrapper', cause: deep };
    expect(isContextOverflowError(deep)).toBe(false);
  });

  test('AI SDK APICallError: status, response body, parsed data and the URL naming the provider', () => {
    const groq = apiCallError({
      message: 'Please reduce the length of the messages or completion.',
      url: 'https://api.groq.com/openai/v1/chat/completions',
      statusCode: 400,
      responseBody:
        '{"error":{"message":"Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
    });
    expect(isContextOverflowError(groq)).toBe(true);
    expect(getContextOverflowProvider(groq)).toBe('groq');

    const azure = apiCallError({
      message: OPENAI,
      url: 'https://contoso.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-06-01',
      statusCode: 400,
    });
    expect(getContextOverflowProvider(azure)).toBe('azure');
    expect(getContextOverflowProvider(apiCallError({ message: OPENAI, statusCode: 400 }))).toBe('openai');
  });

  test('an AI SDK RetryError is judged by the errors it carries', () => {
    const retry = Object.assign(new Error('Failed after 3 attempts. Last error: Bad Request'), {
      name: 'AI_RetryError',
      reason: 'maxRetriesExceeded',
      errors: [new Error('socket hang up'), new Error(ANTHROPIC)],
      lastError: new Error(ANTHROPIC),
    });
    expect(isContextOverflowError(retry)).toBe(true);
  });

  test('request bodies and headers are never read: user text quoting an overflow does not count', () => {
    const error = apiCallError({
      message: 'Bad Request',
      statusCode: 400,
      requestBodyValues: { messages: [{ role: 'user', content: `why do I get "${ANTHROPIC}"?` }] },
    });
    expect(isContextOverflowError(error)).toBe(false);
  });

  test('HTTP status beside the text: 429 is never an overflow, 413 only when its wording says so', () => {
    expect(isContextOverflowError(apiCallError({ message: OPENAI, statusCode: 429 }))).toBe(false);
    expect(isContextOverflowError({ message: ANTHROPIC, $metadata: { httpStatusCode: 429 } })).toBe(false);
    expect(isContextOverflowError(`Error: 429 ${ANTHROPIC}`)).toBe(false);
    expect(isContextOverflowError(`API Error: 400 ${ANTHROPIC}`)).toBe(true);
    expect(isContextOverflowError({ message: ANTHROPIC, statusCode: 500 })).toBe(true);
    expect(isContextOverflowError({ message: ANTHROPIC, status: 413 })).toBe(true);
    expect(isContextOverflowError({ message: 'Request Entity Too Large', status: 413 })).toBe(false);
    const bytesAndTokens = { status: 413, error: { type: 'request_too_large', message: ANTHROPIC } };
    expect(isContextOverflowError(bytesAndTokens)).toBe(false);
  });
});

describe('what is and is not an overflow', () => {
  test('input alone too long, and input plus a modest output reserve over the window, are overflows', () => {
    expect(isContextOverflowError(ANTHROPIC)).toBe(true);
    const sum =
      'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again';
    expect(isContextOverflowError(sum)).toBe(true);
  });

  test('an output reserve that takes most of the window is an overflow too, its sizes showing the reserve', () => {
    const reserve =
      'input length and `max_tokens` exceed context limit: 50000 + 160000 > 200000, decrease input';
    expect(isContextOverflowError(reserve)).toBe(true);
    expect(parseOverflowTokens(reserve)).toEqual({
      requestedTokens: 210000,
      limitTokens: 200000,
      inputTokens: 50000,
    });
    const legacy =
      "This model's maximum context length is 4097 tokens, however you requested 4116 tokens (1044 in your prompt; 3072 for the completion). Please reduce your prompt; or completion length.";
    const stated = parseOverflowTokens(legacy);
    expect(stated).toEqual({ requestedTokens: 4116, limitTokens: 4097, inputTokens: 1044 });
    expect((stated?.requestedTokens ?? 0) - (stated?.inputTokens ?? 0)).toBe(3072);
  });

  test('an output cap over what the model can write, whatever the input, is not an overflow', () => {
    for (const error of [
      'max_tokens is too large: 8192. This model supports at most 4096 completion tokens, whereas you provided 8192.',
      'The maximum tokens you requested exceeds the model limit of 4096. Try again with a maximum tokens value that is lower than 4096.',
      "API Error: Claude's response exceeded the 32000 output token maximum.",
    ]) {
      expect(isContextOverflowError(error)).toBe(false);
    }
  });

  test('"Prompt is too long" counts as the whole message or a quoted message value, not inside prose', () => {
    expect(isContextOverflowError('Prompt is too long')).toBe(true);
    expect(
      isContextOverflowError({ error: { type: 'invalid_request_error', message: 'Prompt is too long' } }),
    ).toBe(true);
    expect(isContextOverflowError("{'message': 'Prompt is too long'}")).toBe(true);
    expect(isContextOverflowError('the CLI said Prompt is too long, then stopped')).toBe(false);
    expect(
      isContextOverflowError('Prompt is too long for an image caption: 1200 characters, 1000 allowed'),
    ).toBe(false);
  });

  test('a server worded its own way: the prompt exceeding a limit of tokens or the window, in one sentence', () => {
    for (const text of [
      'Input length 5120 exceeds the maximum length 4096.',
      'The query token count is larger than the limit of this model.',
      'sequence length exceeded: the prompt is longer than max_seq_len 8192',
      'Error: messages are too long for the context window of model foo-7b',
      'model max length exceeded, max length: 8192',
    ])
      expect(isContextOverflowError(text), text).toBe(true);
    expect(parseOverflowTokens('Input length 5120 exceeds the maximum length 4096.')).toEqual({
      requestedTokens: 5120,
      limitTokens: 4096,
      inputTokens: 5120,
    });
    // The same words about requests, items, bytes, one string or image, or the output, are not.
    for (const text of [
      'Request exceeds the limit of 100 requests per minute.',
      'Input exceeds the maximum number of images.',
      'messages exceed the maximum of 100 items',
      'Input length exceeds the maximum of 10000 characters.',
      "Invalid 'messages[3].content': string too long. Expected a string with maximum length 1048576.",
      'max_tokens exceeds the maximum allowed for this model: 8192',
      'Post "https://example.test/v1": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
      'the prompt exceeded. Try a smaller model window',
      'Your request exceeded the daily token limit for this model.',
      "Input tokens exceed your plan's monthly limit",
      'Request too large for gpt-4o: input exceeds the 30000 tokens-per-minute limit',
      'The requested number of tokens (10000) exceeds the maximum output length of 8192',
      "Input exceeds the maximum length allowed for the field 'name' (64)",
      'Request URI length exceeds the maximum allowed',
      'Message length exceeds the maximum allowed length',
      'query length exceeds max allowed length 255 (ERROR: value too long for type character varying(255))',
    ])
      expect(isContextOverflowError(text), text).toBe(false);
    expect(
      isRequestTooLargeError({ status: 413, message: 'request content length exceeds max allowed' }),
    ).toBe(true);
  });

  test('a size is read only where the message states it plainly: null rather than a wrong number', () => {
    for (const [text, limit] of [
      ['The input length 10000 exceeds the context window of gpt-4 (8192 tokens)', 8192],
      ['Input length 9000 exceeds the maximum context length of Qwen2.5-7B (8192)', 8192],
      ['the prompt of 130,000 tokens exceeds the 128k limit', 128_000],
      ['prompt (5000 tokens) exceeds the limit for claude-3 (4096)', 4096],
      ['Context length exceeded: prompt_tokens=130000, max_tokens=4096, context_window=128000', 128_000],
      ['Request exceeds the context window, retrying (1/3)', undefined],
    ] as const) {
      expect(isContextOverflowError(text), text).toBe(true);
      const stated = parseOverflowTokens(text);
      if (stated !== null) expect(stated.limitTokens, text).toBe(limit);
    }
  });

  test('a message wrapped by a terminal or a JSON encoder is read as one line', () => {
    const wrapped =
      "This model's maximum context length is 131072 tokens. However, you requested 16000 output tokens and your prompt contains\nat least 115073 input tokens";
    const expected = { requestedTokens: 131073, limitTokens: 131072, inputTokens: 115073 };
    expect(parseOverflowTokens(wrapped)).toEqual(expected);
    expect(parseOverflowTokens(JSON.stringify({ error: { message: wrapped } }))).toEqual(expected);
  });

  test('unrelated errors are not overflows', () => {
    for (const error of [
      'fetch failed',
      new Error('Invalid API key provided'),
      { error: { type: 'overloaded_error', message: 'Overloaded' } },
      { message: 'The model `gpt-5` does not exist or you do not have access to it.', status: 404 },
      'context',
      'maximum',
    ]) {
      expect(isContextOverflowError(error)).toBe(false);
      expect(getContextOverflowProvider(error)).toBeNull();
    }
  });
});

describe('parseOverflowTokens', () => {
  test('reads the sizes providers state', () => {
    expect(parseOverflowTokens(ANTHROPIC)).toEqual({
      requestedTokens: 208000,
      limitTokens: 200000,
      inputTokens: 208000,
    });
    expect(parseOverflowTokens(OPENAI)).toEqual({
      requestedTokens: 140000,
      limitTokens: 128000,
      inputTokens: 130000,
    });
    expect(parseOverflowTokens('prompt is too long: 200,049 tokens > 200,000 maximum')).toEqual({
      requestedTokens: 200049,
      limitTokens: 200000,
      inputTokens: 200049,
    });
  });

  test('reads llama.cpp counts from fields beside the text', () => {
    const error = {
      error: {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 9000,
        n_ctx: 8192,
      },
    };
    expect(parseOverflowTokens(error)).toEqual({
      requestedTokens: 9000,
      limitTokens: 8192,
      inputTokens: 9000,
    });
  });

  test('reads the counts of the wordings added for Copilot, llama.cpp and Titan', () => {
    expect(parseOverflowTokens('prompt token count of 139639 exceeds the limit of 128000')).toEqual({
      requestedTokens: 139639,
      limitTokens: 128000,
      inputTokens: 139639,
    });
    expect(
      parseOverflowTokens(
        'request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it',
      ),
    ).toEqual({ requestedTokens: 4476, limitTokens: 4096, inputTokens: 4476 });
    expect(
      parseOverflowTokens('input (9000 tokens) is larger than the max context size (8192 tokens)'),
    ).toEqual({
      requestedTokens: 9000,
      limitTokens: 8192,
      inputTokens: 9000,
    });
    expect(
      parseOverflowTokens(
        '400 Bad Request: Too many input tokens. Max input tokens: 8192, request input token count: 9279',
      ),
    ).toEqual({ requestedTokens: 9279, limitTokens: 8192, inputTokens: 9279 });
  });

  test('omits inputTokens where the message does not split the total', () => {
    expect(
      parseOverflowTokens(
        'too many tokens: total number of tokens (prompt and prediction) cannot exceed 4096 - received 5000.',
      ),
    ).toEqual({ requestedTokens: 5000, limitTokens: 4096 });
  });

  test('null for overflows without sizes and for anything that is not an overflow', () => {
    expect(parseOverflowTokens('Input is too long for requested model.')).toBeNull();
    expect(parseOverflowTokens('Too many tokens, please wait before trying again.')).toBeNull();
    expect(parseOverflowTokens(undefined)).toBeNull();
  });
});

describe('isRequestTooLargeError', () => {
  test('a 413 whose wording is a context overflow is an overflow, not a body over the byte limit', () => {
    const overflow = {
      status: 413,
      error: { type: 'invalid_request_error', message: 'Request size exceeds model context window' },
    };
    expect(isRequestTooLargeError(overflow)).toBe(false);
    expect(isContextOverflowError(overflow)).toBe(true);
    const bytes = {
      status: 413,
      error: { type: 'request_too_large', message: 'Request exceeds the maximum size' },
    };
    expect(isRequestTooLargeError(bytes)).toBe(true);
    expect(isContextOverflowError(bytes)).toBe(false);
  });

  test('413 and body-size wording, not tokens-per-minute limits sent with 413', () => {
    expect(isRequestTooLargeError({ status: 413, message: 'Request Entity Too Large' })).toBe(true);
    expect(isRequestTooLargeError(apiCallError({ message: 'Payload Too Large', statusCode: 413 }))).toBe(
      true,
    );
    expect(
      isRequestTooLargeError({
        status: 413,
        message:
          'Request too large for model `llama3-70b-8192` in organization `org_1` on tokens per minute (TPM): Limit 6000, Requested 9000, please reduce your message size and try again.',
      }),
    ).toBe(false);
    expect(isRequestTooLargeError(ANTHROPIC)).toBe(false);
    expect(isRequestTooLargeError('socket hang up')).toBe(false);
  });
});

describe('odd input never throws', () => {
  const hostile: unknown[] = [
    undefined,
    null,
    0,
    Number.NaN,
    10n,
    Symbol('x'),
    () => ANTHROPIC,
    [],
    [[[]]],
    Object.create(null),
    new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    ),
    (() => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    })(),
    {
      get message(): string {
        throw new Error('getter');
      },
    },
    {
      [Symbol.toPrimitive]() {
        throw new Error('primitive');
      },
    },
    { message: 'x'.repeat(2_000_000) + ANTHROPIC },
    { body: `{${'"a":{'.repeat(5_000)}` },
    { errors: new Array(100_000).fill(ANTHROPIC) },
  ];

  test.each(hostile.map((value, index) => [index, value] as const))('hostile value #%i', (_index, value) => {
    expect(typeof isContextOverflowError(value)).toBe('boolean');
    expect(typeof isRequestTooLargeError(value)).toBe('boolean');
    const provider = getContextOverflowProvider(value);
    expect(provider === null || typeof provider === 'string').toBe(true);
    const tokens = parseOverflowTokens(value);
    expect(tokens === null || typeof tokens.requestedTokens === 'number').toBe(true);
  });

  test('anything: a boolean, a provider or null, sizes or null; the three agree', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }),
        (value) => {
          const overflow = isContextOverflowError(value);
          expect(typeof overflow).toBe('boolean');
          expect(typeof isRequestTooLargeError(value)).toBe('boolean');
          expect(getContextOverflowProvider(value) !== null).toBe(overflow);
          if (parseOverflowTokens(value) !== null) expect(overflow).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('error-shaped objects built from provider words', () => {
    const words = fc.constantFrom(
      'prompt is too long:',
      'tokens',
      '>',
      'maximum',
      'context length',
      'rate limit',
      '429',
      '413',
      'exceeds',
      '{',
      '}',
      '"error":',
      '(',
      ')',
      'n_ctx',
      '12345',
      '200,000',
    );
    const text = fc.array(words, { maxLength: 12 }).map((parts) => parts.join(' '));
    const errorLike = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.record(
          {
            message: text,
            error: tie('node'),
            cause: tie('node'),
            statusCode: fc.integer({ min: 100, max: 599 }),
            responseBody: text.map((body) => JSON.stringify({ error: { message: body } })),
          },
          { requiredKeys: [] },
        ),
      ),
    })).node;
    fc.assert(
      fc.property(errorLike, (value) => {
        const overflow = isContextOverflowError(value);
        expect(getContextOverflowProvider(value) !== null).toBe(overflow);
        const tokens = parseOverflowTokens(value);
        if (tokens !== null) {
          expect(overflow).toBe(true);
          expect(Number.isSafeInteger(tokens.requestedTokens)).toBe(true);
          expect(Number.isSafeInteger(tokens.limitTokens)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
