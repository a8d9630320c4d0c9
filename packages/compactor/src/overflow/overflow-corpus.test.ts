// Real provider error strings, each as published with its source beside it (GitHub issues and files that
// quote the body a provider returned, or the provider's documentation). Near misses carry
// `overflow: false`: rate limits and quotas, throttling that names tokens, spending limits, output caps
// the model cannot serve, body-size limits, authentication errors. An input plus an output reserve over
// the window is an overflow even when the reserve is most of it: its sizes tell the caller so.
// Whitespace that a terminal wrapped is joined with single spaces; nothing else is changed.
import { describe, expect, test } from 'vitest';
import {
  type ContextOverflowProvider,
  getContextOverflowProvider,
  isContextOverflowError,
  isRequestTooLargeError,
  type OverflowTokens,
  parseOverflowTokens,
} from './overflow-errors.js';

interface Row {
  /** Where the string was published: repository + issue, or repository + file. */
  readonly source: string;
  readonly error: unknown;
  readonly overflow: boolean;
  /** Expected when the error itself identifies the provider (wording, client wrapper or URL). */
  readonly provider?: ContextOverflowProvider;
  /** Expected sizes for overflows that state them (a count and its limit); absent: the error states none. */
  readonly tokens?: OverflowTokens;
  /** Expected `isRequestTooLargeError` where it should be true. */
  readonly tooLarge?: true;
}

const OVERFLOWS: readonly Row[] = [
  // --- OpenAI (chat completions, legacy completions, responses) ---
  {
    source: 'The-Vibe-Company/quivr#505',
    error:
      "openai.error.InvalidRequestError: This model's maximum context length is 4097 tokens. However, you requested 4203 tokens (3703 in the messages, 500 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 4203, limitTokens: 4097, inputTokens: 3703 },
  },
  {
    source: 'stanford-crfm/helm#94',
    error:
      "OpenAI error: This model's maximum context length is 2049 tokens, however you requested 2054 tokens (2049 in your prompt, 5 for the completion). Please reduce your prompt or completion length.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 2054, limitTokens: 2049, inputTokens: 2049 },
  },
  {
    source: 'mikavehns/BookGPT#18',
    error:
      "This model's maximum context length is 4097 tokens. However, your messages resulted in 4113 tokens. Please reduce the length of the messages.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 4113, limitTokens: 4097, inputTokens: 4113 },
  },
  {
    source: 'chathub-dev/chathub#126',
    error:
      '{"error":{"message":"This model\'s maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 4294, limitTokens: 4097, inputTokens: 4294 },
  },
  {
    source: 'FoundationAgents/OpenManus#62 (comment)',
    error:
      "API error: Error code: 400 - {'error': {'message': \"This model's maximum context length is 8192 tokens. However, you requested 8213 tokens (6683 in the messages, 730 in the functions, and 800 in the completion). Please reduce the length of the messages, functions, or completion.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 8213, limitTokens: 8192, inputTokens: 7413 },
  },
  {
    source: 'VectorlyApp/bluebox#66',
    error:
      "Discovery failed: Error code: 400 - {'error': {'message': 'Your input exceeds the context window of this model. Please adjust your input and try again.', 'type': 'invalid_request_error', 'param': 'input', 'code': 'context_length_exceeded'}}",
    overflow: true,
    provider: 'openai',
  },
  {
    source: 'the-open-agent/openagent#2344',
    error:
      'received error while streaming: ("type": "invalid request_error","code":"context_length_exceeded", "message" : "Your input exceeds the context window of this model. Please adjust your input and try again.","param": "input")',
    overflow: true,
    provider: 'openai',
  },
  {
    source: 'mckaywrigley/chatbot-ui#102',
    error:
      'OpenAI API returned an error. responseStatusText: "Bad Request", responseStatusCode: "400", responseMessage: "{ "error": { "message": "This model\'s maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded" } }"',
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 4120, limitTokens: 4097, inputTokens: 3120 },
  },
  {
    source: 'ai-genie/chatgpt-vscode#111 (wrapper blames the subscription; the body is an overflow)',
    error:
      'HTTP 400 Bad Request. You may have exhausted your OpenAI subscription allowance or have an expired account. { "error": { "message": "This model\'s maximum context length is 4097 tokens. However, you requested 4256 tokens (2256 in the messages, 2000 in the completion). Please reduce the length of the messages or completion.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded" } }',
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 4256, limitTokens: 4097, inputTokens: 2256 },
  },
  {
    source: 'kkyr/shellcheck-gpt#1',
    error:
      "error calling completion API: could not create chat completion: error, status code: 400, message: This model's maximum context length is 16385 tokens. However, your messages resulted in 51300 tokens. Please reduce the length of the messages.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 51300, limitTokens: 16385, inputTokens: 51300 },
  },
  {
    source: 'Doriandarko/o1-engineer#15',
    error:
      "Error while communicating with OpenAI: Error code: 400 - {'error': {'message': \"This model's maximum context length is 128000 tokens. However, you requested 131447 tokens (71447 in the messages, 60000 in the completion). Please reduce the length of the messages or completion.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 131447, limitTokens: 128000, inputTokens: 71447 },
  },
  {
    source: 'fierceX/Document_QA#3',
    error:
      "openai.error.InvalidRequestError: This model's maximum context length is 8191 tokens, however you requested 8238 tokens (8238 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 8238, limitTokens: 8191, inputTokens: 8238 },
  },
  {
    source: 'lm-sys/RouteLLM#34',
    error:
      "openai.BadRequestError: Error code: 400 - {'error': {'message': \"This model's maximum context length is 8192 tokens, however you requested 8977 tokens (8977 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.\", 'type': 'invalid_request_error', 'param': None, 'code': None}}",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 8977, limitTokens: 8192, inputTokens: 8977 },
  },
  {
    source: 'Niek/chatgpt-web#525',
    error:
      "Error: 400 - This model's maximum context length has been exceeded. Please reduce the length of the messages.",
    overflow: true,
  },
  // --- Azure OpenAI ---
  {
    source: 'microsoft/kernel-memory#516',
    error:
      'Azure.RequestFailedException: This model\'s maximum context length is 8192 tokens. However, your messages resulted in 10383 tokens. Please reduce the length of the messages. Status: 400 (model_error) ErrorCode: context_length_exceeded Content: { "error": { "message": "This model\'s maximum context length is 8192 tokens. However, your messages resulted in 10383 tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded" } }',
    overflow: true,
    provider: 'azure',
    tokens: { requestedTokens: 10383, limitTokens: 8192, inputTokens: 10383 },
  },
  {
    source: 'BerriAI/litellm#15968',
    error:
      'AzureException BadRequestError - Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 509178 tokens. Please reduce the length of the messages.',
    overflow: true,
    provider: 'azure',
    tokens: { requestedTokens: 509178, limitTokens: 272000, inputTokens: 509178 },
  },
  {
    source: "Azure-Samples/azure-search-openai-demo#1199 (Azure returns OpenAI's body verbatim)",
    error:
      "Error code: 400 - {'error': {'message': \"This model's maximum context length is 4096 tokens. However, you requested 4201 tokens (3177 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
    overflow: true,
    tokens: { requestedTokens: 4201, limitTokens: 4096, inputTokens: 3177 },
  },
  {
    source: 'assafelovic/gpt-researcher#680 (Azure GPT-4o)',
    error:
      "Error in generate_report: Error code: 400 - {'error': {'message': \"This model's maximum context length is 128000 tokens. However, your messages resulted in 192041 tokens. Please reduce the length of the messages.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}",
    overflow: true,
    tokens: { requestedTokens: 192041, limitTokens: 128000, inputTokens: 192041 },
  },
  // --- Anthropic ---
  {
    source: 'earendil-works/pi#102',
    error:
      'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 219898 tokens > 200000 maximum"},"request_id":"req_011CVjxiYzEFcAQC4Fk87zw2"}',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 219898, limitTokens: 200000, inputTokens: 219898 },
  },
  {
    source: 'sojohnnysaid/project-guide#2',
    error:
      "anthropic.BadRequestError: Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'prompt is too long: 208656 tokens > 200000 maximum'}}",
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 208656, limitTokens: 200000, inputTokens: 208656 },
  },
  {
    source: 'stackblitz-labs/bolt.diy#401 (AI SDK APICallError: message and statusCode as logged)',
    error: Object.assign(new Error('prompt is too long: 202609 tokens > 200000 maximum'), {
      name: 'AI_APICallError',
      statusCode: 400,
    }),
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 202609, limitTokens: 200000, inputTokens: 202609 },
  },
  {
    source: 'boldsoftware/exe.dev#62',
    error:
      'LLM request failed: status 400 Bad Request (url=http://169.254.169.254/gateway/llm/_/gateway/anthropic/v1/messages, model=claude-opus-4-5-20251101): {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 200251 tokens > 200000 maximum"},"request_id":"req_011CWdepJvA2D819tdYYq4h7"}',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 200251, limitTokens: 200000, inputTokens: 200251 },
  },
  {
    source: 'stackblitz/bolt.new#1036',
    error: 'prompt is too long: 209062 tokens > 199999 maximum',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 209062, limitTokens: 199999, inputTokens: 209062 },
  },
  {
    source:
      'hjsad1994/Troll-LLM openspec/changes/archive/2026-01-09-improve-ohmygpt-prompt-too-long-error/proposal.md',
    error:
      '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 214850 tokens > 200000 maximum"},"request_id":"req_011CWurfp73Wj89b2cghZKFM"}',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 214850, limitTokens: 200000, inputTokens: 214850 },
  },
  {
    source: 'continuedev/continue#6080',
    error:
      'Error in Continue server: {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 207951, limitTokens: 200000, inputTokens: 199759 },
  },
  {
    source: 'docker/docker-agent#569',
    error:
      '400 Bad Request {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again"},"request_id":"req_011CUB2XUHWkFnQzxcKBbjpF"}',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 242959, limitTokens: 200000, inputTokens: 178959 },
  },
  {
    source: 'openclaw/openclaw#7587',
    error:
      'LLM request rejected: input length and `max_tokens` exceed context limit: 170631 + 34048 > 200000, decrease input length or `max_tokens` and try again',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 204679, limitTokens: 200000, inputTokens: 170631 },
  },
  {
    source: 'anthropics/claude-code#228',
    error:
      'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 184915 + 20000 > 204648, decrease input length or `max_tokens` and try again"}}',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 204915, limitTokens: 204648, inputTokens: 184915 },
  },
  {
    source: 'kortix-ai/suna#172',
    error:
      'litellm.BadRequestError: AnthropicException - b\'{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 174167 + 64000 > 200000, decrease input length or `max_tokens` and try again"}}\'',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 238167, limitTokens: 200000, inputTokens: 174167 },
  },
  {
    source: 'darkresearch/mallory CONTEXT_LIMIT_BUG_ANALYSIS.md',
    error:
      'Error: input length and max_tokens exceed context limit: 154996 + 64000 > 200000, decrease input length or max_tokens and try again',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 218996, limitTokens: 200000, inputTokens: 154996 },
  },
  // --- Amazon Bedrock ---
  {
    source: 'daisuke-awaji/moca#254',
    error:
      '[SYSTEM_ERROR] An error occurred. Type: ValidationException Details: The model returned the following errors: prompt is too long: 200049 tokens > 200000 maximum Request ID: 9251f066-a420-483b-b3ae-7485084f6dc6 [/SYSTEM_ERROR]',
    overflow: true,
    provider: 'bedrock',
    tokens: { requestedTokens: 200049, limitTokens: 200000, inputTokens: 200049 },
  },
  {
    source: 'aws-samples/bedrock-chat#95',
    error:
      '[ERROR] EventStreamError: An error occurred (validationException) when calling the InvokeModelWithResponseStream operation: Input is too long for requested model.',
    overflow: true,
    provider: 'bedrock',
  },
  {
    source: 'aws-samples/assessment-generator#2 (AWS SDK v3 error object)',
    error: {
      errorType: 'ValidationException',
      errorMessage: 'Input is too long for requested model.',
      name: 'ValidationException',
      $fault: 'client',
      $metadata: {
        httpStatusCode: 400,
        requestId: '16fb0962-139d-4c70-ba9c-602d9630e854',
        attempts: 1,
        totalRetryDelay: 0,
      },
    },
    overflow: true,
    provider: 'bedrock',
  },
  {
    source: 'continuedev/continue#9592',
    error: 'The model returned the following errors: Input is too long for requested model.',
    overflow: true,
    provider: 'bedrock',
  },
  {
    source: 'continuedev/continue#6005',
    error:
      'Error processing Bedrock stream: The model returned the following errors: Input is too long for requested model.',
    overflow: true,
    provider: 'bedrock',
  },
  // --- Google (AI Studio and Vertex AI) ---
  {
    source: 'google-gemini/gemini-cli#13006',
    error:
      '[{ "error": { "code": 400, "message": "The input token count (1054016) exceeds the maximum number of tokens allowed (1048576).", "errors": [ { "message": "The input token count (1054016) exceeds the maximum number of tokens allowed (1048576).", "domain": "global", "reason": "badRequest" } ], "status": "INVALID_ARGUMENT" } } ]',
    overflow: true,
    provider: 'google',
    tokens: { requestedTokens: 1054016, limitTokens: 1048576, inputTokens: 1054016 },
  },
  {
    source: 'googleapis/python-genai#2466',
    error:
      "google.genai.errors.ClientError: 400 INVALID_ARGUMENT. {'error': {'code': 400, 'message': 'The input token count (81881) exceeds the maximum number of tokens allowed (65536).', 'status': 'INVALID_ARGUMENT'}}",
    overflow: true,
    provider: 'google',
    tokens: { requestedTokens: 81881, limitTokens: 65536, inputTokens: 81881 },
  },
  {
    source: 'googleapis/python-aiplatform#6336 (Vertex AI)',
    error:
      "{'error': {'code': 400, 'message': 'The input token count (25270) exceeds the maximum number of tokens allowed (4000).', 'status': 'INVALID_ARGUMENT'}}",
    overflow: true,
    provider: 'google',
    tokens: { requestedTokens: 25270, limitTokens: 4000, inputTokens: 25270 },
  },
  {
    source: 'google-gemini/gemini-cli#19727 (Vertex AI)',
    error:
      '[API Error: Failed to generate content: Unable to submit request because the input token count is 1251952 but model only supports up to 1048576. Reduce the input token count and try again. You can also use the CountTokens API to calculate prompt token count and billable characters. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/models]',
    overflow: true,
    provider: 'google',
    tokens: { requestedTokens: 1251952, limitTokens: 1048576, inputTokens: 1251952 },
  },
  {
    source: 'warpdotdev/warp#15662 (Vertex AI)',
    error:
      'Response stream finished unexpectedly with internal error: Vertex AI API error: Error 400, Message: The input token count exceeds the maximum number of tokens allowed 1048576., Status: INVALID_ARGUMENT, Details: []',
    overflow: true,
    provider: 'google',
  },
  // --- OpenRouter ---
  {
    source: 'refly-ai/refly#1177',
    error:
      'Error: 400 This endpoint\'s maximum context length is 32768 tokens. However, you requested about 42832 tokens (42832 of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
    overflow: true,
    provider: 'openrouter',
    tokens: { requestedTokens: 42832, limitTokens: 32768, inputTokens: 42832 },
  },
  {
    source: 'topoteretes/cognee#1061',
    error:
      'litellm.BadRequestError: OpenrouterException - {"error":{"message":"This endpoint\'s maximum context length is 16384 tokens. However, you requested about 94307 tokens (94307 of text input). Please reduce the length of either one, or use the \\"middle-out\\" transform to compress your prompt automatically.","code":400,"metadata":{"provider_name":null}}}',
    overflow: true,
    provider: 'openrouter',
    tokens: { requestedTokens: 94307, limitTokens: 16384, inputTokens: 94307 },
  },
  {
    source: 'CherryHQ/cherry-studio#5538 (upstream vLLM error relayed with code 502)',
    error: {
      message:
        "Upstream error from Chutes: The input (49146 tokens) is longer than the model's context length (40960 tokens).",
      error: {
        message:
          "Upstream error from Chutes: The input (49146 tokens) is longer than the model's context length (40960 tokens).",
        code: 502,
        metadata: {
          raw: {
            object: 'error',
            message: "The input (49146 tokens) is longer than the model's context length (40960 tokens).",
            type: 'BadRequestError',
            param: null,
            code: 400,
          },
          provider_name: 'Chutes',
        },
      },
      code: 502,
    },
    overflow: true,
    provider: 'openrouter',
    tokens: { requestedTokens: 49146, limitTokens: 40960, inputTokens: 49146 },
  },
  // --- Groq, Cerebras ---
  {
    source: 'thepersonalaicompany/amurex-backend#51',
    error:
      "groq.BadRequestError: Error code: 400 - {'error': {'message': 'Please reduce the length of the messages or completion.', 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
    overflow: true,
    provider: 'groq',
  },
  {
    source: 'letta-ai/letta#1963',
    error:
      'Letta.letta.server.server - ERROR - Error in server._step: HTTP error occurred: 400 Client Error: Bad Request for url: https://api.groq.com/openai/v1/chat/completions | Status code: 400, Message: {"error":{"message":"Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":',
    overflow: true,
    provider: 'groq',
  },
  {
    source: 'OpenHands/OpenHands#1902',
    error:
      "opendevin:ERROR: agent_controller.py:109 - Error while running the agent: GroqException - Error code: 400 - {'error': {'message': 'Please reduce the length of the messages or completion.', 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
    overflow: true,
    provider: 'groq',
  },
  {
    source: 'cline/cline#5140',
    error:
      '400 Please reduce the length of the messages or completion. Current length is 42328 while limit is 40000',
    overflow: true,
    provider: 'cerebras',
    tokens: { requestedTokens: 42328, limitTokens: 40000 },
  },
  // --- DeepSeek ---
  {
    source: 'evalstate/fast-agent#621',
    error:
      "deepseek request failed for model 'deepseek-chat' (code: invalid_request_error) (status=400): Error code: 400 - {'error': {'message': \"This model's maximum context length is 131072 tokens. However, you requested 131134 tokens (122942 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.\", 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_request_error'}}",
    overflow: true,
    provider: 'deepseek',
    tokens: { requestedTokens: 131134, limitTokens: 131072, inputTokens: 122942 },
  },
  {
    source: 'FoundationAgents/OpenManus#62',
    error:
      "API error: Error code: 400 - {'error': {'message': \"This model's maximum context length is 65536 tokens. However, you requested 72814 tokens (68718 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.\", 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_request_error'}}",
    overflow: true,
    provider: 'deepseek',
    tokens: { requestedTokens: 72814, limitTokens: 65536, inputTokens: 68718 },
  },
  {
    source: 'stackblitz-labs/bolt.diy#227 (AI SDK APICallError fields as logged)',
    error: Object.assign(
      new Error(
        "This model's maximum context length is 131072 tokens. However, you requested 133034 tokens (125034 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.",
      ),
      {
        name: 'AI_APICallError',
        statusCode: 400,
        responseBody:
          '{"error":{"message":"This model\'s maximum context length is 131072 tokens. However, you requested 133034 tokens (125034 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}',
        isRetryable: false,
        data: {
          error: {
            message:
              "This model's maximum context length is 131072 tokens. However, you requested 133034 tokens (125034 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.",
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_request_error',
          },
        },
      },
    ),
    overflow: true,
    provider: 'deepseek',
    tokens: { requestedTokens: 133034, limitTokens: 131072, inputTokens: 125034 },
  },
  {
    source: 'continuedev/continue#10342',
    error:
      "400 This model's maximum context length is 131072 tokens. However, you requested 154963 tokens (150867 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 154963, limitTokens: 131072, inputTokens: 150867 },
  },
  // --- xAI ---
  {
    source: 'cline/cline#3120',
    error: '400 "This model\'s maximum prompt length is 131072 but the request contains 136973 tokens."',
    overflow: true,
    provider: 'xai',
    tokens: { requestedTokens: 136973, limitTokens: 131072, inputTokens: 136973 },
  },
  {
    source: 'chenyme/grok2api#693',
    error: "HTTP 400 This model's maximum prompt length is 500000 but the request contains 907154 tokens.",
    overflow: true,
    provider: 'xai',
    tokens: { requestedTokens: 907154, limitTokens: 500000, inputTokens: 907154 },
  },
  // --- Mistral ---
  {
    source:
      'public Python script quoting a mistralai SDKError (code search; repository not shown by the index)',
    error:
      'mistralai.client.errors.sdkerror.SDKError: API error occurred: Status 400. Body: {"object":"error","message":"Prompt contains 159202 tokens and 0 draft tokens, too large for model with 131072 maximum context length","type":"invalid_request_invalid_args","param":null,"code":"3051","raw_status_code":400}',
    overflow: true,
    provider: 'mistral',
    tokens: { requestedTokens: 159202, limitTokens: 131072, inputTokens: 159202 },
  },
  // --- Together AI (and TGI, whose wording it shares) ---
  {
    source: 'stanford-crfm/helm#2079',
    error:
      'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 2019 `inputs` tokens and 30 `max_new_tokens`',
    overflow: true,
    provider: 'together',
    tokens: { requestedTokens: 2049, limitTokens: 2048, inputTokens: 2019 },
  },
  {
    source: 'BerriAI/litellm#4934',
    error:
      "BadRequestError: litellm.BadRequestError: Together_aiException - Error code: 400 - {'error': {'message': 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4097. Given: 80125 `inputs` tokens and 4096 `max_new_tokens`', 'type': 'invalid_request_error', 'param': 'max_tokens', 'code': None}}",
    overflow: true,
    provider: 'together',
    tokens: { requestedTokens: 84221, limitTokens: 4097, inputTokens: 80125 },
  },
  {
    source: 'stanford-crfm/helm#1820',
    error:
      'helm.proxy.clients.together_client.TogetherClientError: Together request (job_id=c6b3f185e4f83a0d26801a5618fe0e171086b5e25c6fbe5ef525cbffc131c2dd) failed with error: Input validation error: `inputs` must have less than 1024 tokens. Given: 1244',
    overflow: true,
    provider: 'together',
    tokens: { requestedTokens: 1244, limitTokens: 1024, inputTokens: 1244 },
  },
  {
    source: 'huggingface/llm-vscode#94 (Hugging Face inference, same wording)',
    error:
      'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 3474 `inputs` tokens and 60 `max_new_tokens`',
    overflow: true,
    tokens: { requestedTokens: 3534, limitTokens: 2048, inputTokens: 3474 },
  },
  // --- Fireworks ---
  {
    source: 'warpdotdev/warp#15402',
    error:
      'Fireworks API error: POST "https://api.fireworks.ai/inference/v1/chat/completions": 400 Bad Request {"object":"error","type":"invalid_request_error","code":"invalid_request_error","message":"The prompt is too long: 264613, model maximum context length: 262141"}',
    overflow: true,
    provider: 'fireworks',
    tokens: { requestedTokens: 264613, limitTokens: 262141, inputTokens: 264613 },
  },
  {
    source: 'fw-ai/cookbook#134',
    error:
      'litellm.BadRequestError: Fireworks_aiException - {"error":{"object":"error","type":"invalid_request_error","code":"invalid_request_error","message":"The prompt is too long: 40177, model maximum context length: 32767"}}',
    overflow: true,
    provider: 'fireworks',
    tokens: { requestedTokens: 40177, limitTokens: 32767, inputTokens: 40177 },
  },
  // --- Cohere ---
  {
    source: 'cohere-ai/sandbox-topically#4',
    error:
      'CohereError: too many tokens: total number of tokens (prompt and prediction) cannot exceed 2048 - received 6354. Try using a shorter prompt or a smaller max_tokens value.',
    overflow: true,
    provider: 'cohere',
    tokens: { requestedTokens: 6354, limitTokens: 2048 },
  },
  // --- vLLM ---
  {
    source: 'ruipeterpan/specreason#4',
    error:
      "ERROR 05-08 21:27:27 [serving_chat.py:198] ValueError: This model's maximum context length is 8192 tokens. However, you requested 8203 tokens (7691 in the messages, 512 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    provider: 'vllm',
    tokens: { requestedTokens: 8203, limitTokens: 8192, inputTokens: 7691 },
  },
  {
    source: 'vllm-project/vllm#20409 (title)',
    error:
      "ValueError: This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messag",
    overflow: true,
    tokens: { requestedTokens: 122946, limitTokens: 16384, inputTokens: 112946 },
  },
  {
    source: 'vllm-project/vllm#12165',
    error:
      'ValueError: The prompt (total length 25938) is too long to fit into the model (context length 4096). Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens.',
    overflow: true,
    provider: 'vllm',
    tokens: { requestedTokens: 25938, limitTokens: 4096, inputTokens: 25938 },
  },
  {
    source: "vLLM's OpenAI-compatible server, current wording (also relayed by LiteLLM and NVIDIA's gateway)",
    error:
      "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.",
    overflow: true,
    tokens: { requestedTokens: 5000, limitTokens: 4096, inputTokens: 5000 },
  },
  {
    source: 'vllm-project/vllm#10440',
    error: 'scheduler.py:648] Input prompt (36893 tokens) is too long and exceeds limit of 1000',
    overflow: true,
    provider: 'vllm',
    tokens: { requestedTokens: 36893, limitTokens: 1000, inputTokens: 36893 },
  },
  {
    source: 'canfieldjuan/finetunelab.ai docs/MAX_TOKENS_CONTEXT_OVERFLOW_FIX.md',
    error:
      "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's maximum context length is 4096 tokens and your request has 2104 input tokens (2000 > 4096 - 2104).",
    overflow: true,
    provider: 'vllm',
    tokens: { requestedTokens: 4104, limitTokens: 4096, inputTokens: 2104 },
  },
  {
    source: 'meta-llama/llama-models#240',
    error:
      "This model's maximum context length is 2048 tokens. However, you requested 2049 tokens (1681 in the messages, 368 in the completion).",
    overflow: true,
    tokens: { requestedTokens: 2049, limitTokens: 2048, inputTokens: 1681 },
  },
  // --- llama.cpp server (and llama-cpp-python) ---
  {
    source: 'oobabooga/textgen#7257',
    error:
      '{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}}',
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 14429, limitTokens: 8192, inputTokens: 14429 },
  },
  {
    source: 'ggml-org/llama.cpp#15780',
    error: {
      error: {
        code: 500,
        message:
          'the request exceeds the available context size. try increasing the context size or enable context shift',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 1407,
        n_ctx: 256,
      },
    },
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 1407, limitTokens: 256, inputTokens: 1407 },
  },
  {
    source: 'jshawtime/saywhatwant docs/228-LLAMACPP-CONTEXT-SIZE-DEBUGGING.md',
    error:
      '[LLAMA.CPP ERROR] Response body: {"error":{"code":400,"message":"the request exceeds the available context size","n_prompt_tokens":1140,"n_ctx":1024}}',
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 1140, limitTokens: 1024, inputTokens: 1140 },
  },
  {
    source: 'ggml-org/llama.cpp#17284',
    error: 'the request exceeds the available context size, try increasing it.',
    overflow: true,
    provider: 'llama.cpp',
  },
  {
    source: 'gpustack/gpustack#852',
    error:
      '9.16.412.167 E srv                send_error: task 40 | error = the request exceeds the available context size. try increasing the context size or enable context shift',
    overflow: true,
    provider: 'llama.cpp',
  },
  {
    source: 'fedora-copr/logdetective-website#193 (llama-cpp-python server)',
    error: '[llama-cpp] | Exception: Requested tokens (2285) exceed context window of 2048',
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 2285, limitTokens: 2048, inputTokens: 2285 },
  },
  // --- LM Studio ---
  {
    source: 'lmstudio-ai/lmstudio-bug-tracker#546',
    error:
      '2025-03-24 18:30:59 [ERROR] Trying to keep the first 111490 tokens when context the overflows. However, the model is loaded with context length of only 32768 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input. Error Data: n/a, Additional Data: n/a',
    overflow: true,
    provider: 'lmstudio',
    tokens: { requestedTokens: 111490, limitTokens: 32768, inputTokens: 111490 },
  },
  {
    source: 'cline/cline#3664',
    error:
      '2025-05-20 15:33:59 [ERROR] Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 7866 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input. Error Data: n/a, Additional Data: n/a',
    overflow: true,
    provider: 'lmstudio',
    tokens: { requestedTokens: 10136, limitTokens: 7866, inputTokens: 10136 },
  },
  {
    source: 'Gitlawb/openclaude#353',
    error:
      'API Error: 400 {"error":"The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input."}',
    overflow: true,
    provider: 'lmstudio',
    tokens: { requestedTokens: 13055, limitTokens: 4096, inputTokens: 13055 },
  },
  {
    source: 'anomalyco/opencode#2259',
    error:
      'The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input',
    overflow: true,
    provider: 'lmstudio',
  },
  {
    source: 'lmstudio-ai/examples#29',
    error: '[ERROR] Error: Input length 6491 exceeds context length 1500',
    overflow: true,
    provider: 'lmstudio',
    tokens: { requestedTokens: 6491, limitTokens: 1500, inputTokens: 6491 },
  },
  {
    source: 'lmstudio-ai/model-catalog#38',
    error: 'An error occurred Input length 1581 exceeds context length 1500',
    overflow: true,
    provider: 'lmstudio',
    tokens: { requestedTokens: 1581, limitTokens: 1500, inputTokens: 1581 },
  },
  {
    source: 'lmstudio-ai/lmstudio-bug-tracker#1251',
    error:
      'Reached context length of 4096 tokens with model (arch: qwen3vlmoe) that does not currently support mid-generation context overflow. Try reloading with a larger context length or shortening the prompt/chat.',
    overflow: true,
    provider: 'lmstudio',
  },
  // --- Ollama ---
  {
    source: 'nano-step/nano-brain#208',
    error: 'ollama: unexpected status 400: {"error":"the input length exceeds the context length"}',
    overflow: true,
    provider: 'ollama',
  },
  {
    source:
      'jeastham1993/zettel-system docs/compound/infrastructure/INFRA-001-ollama-embedding-context-limit.md',
    error: 'OllamaSharp.Models.Exceptions.OllamaException: the input length exceeds the context length',
    overflow: true,
    provider: 'ollama',
  },
  {
    source:
      'public design note quoting an Ollama Cloud session log (code search; repository not shown by the index)',
    error: '400 "prompt too long; exceeded max context length by 65590 tokens (ref: ...)"',
    overflow: true,
    provider: 'ollama',
  },
  // --- Local OpenAI-compatible servers with their own wording ---
  {
    source: 'jundot/omlx#169',
    error:
      'omlx.server - WARNING - [-] - POST /v1/chat/completions → 400: Prompt too long: 51587 tokens exceeds max context window of 32768 tokens',
    overflow: true,
    provider: 'generic',
    tokens: { requestedTokens: 51587, limitTokens: 32768, inputTokens: 51587 },
  },
  {
    source: 'ValueCell-ai/ClawX#658',
    error: '400 Prompt too long: 41911 tokens exceeds max context window of 32768 tokens',
    overflow: true,
    provider: 'generic',
    tokens: { requestedTokens: 41911, limitTokens: 32768, inputTokens: 41911 },
  },
  {
    source: 'ddalcu/mlx-serve#66',
    error: 'API Error: 400 Prompt exceeds maximum context length',
    overflow: true,
    provider: 'generic',
  },
  {
    source: 'sjzar/chatlog#30',
    error: '400 length of prompt_tokens (163280) must be less than max_seq_len (32768).',
    overflow: true,
    provider: 'generic',
    tokens: { requestedTokens: 163280, limitTokens: 32768, inputTokens: 163280 },
  },
  // --- more reports of the same wordings, added after the patterns were written ---
  {
    source: 'smol-ai/developer#7',
    error:
      "openai.error.InvalidRequestError: This model's maximum context length is 4097 tokens. However, your messages resulted in 7575 tokens. Please reduce the length of the messages.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 7575, limitTokens: 4097, inputTokens: 7575 },
  },
  {
    source: 'weaviate/Verba#4',
    error:
      "Something went wrong! This model's maximum context length is 4097 tokens. However, your messages resulted in 5747 tokens. Please reduce the length of the messages.|",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 5747, limitTokens: 4097, inputTokens: 5747 },
  },
  {
    source: 'webtimemachine/wtm2#579',
    error:
      "Error: 400 This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 204308, limitTokens: 128000, inputTokens: 204308 },
  },
  {
    source: 'emmethalm/infiniteGPT#6',
    error:
      "openai.error.InvalidRequestError: This model's maximum context length is 4097 tokens. However, you requested 4972 tokens (3222 in the messages, 1750 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 4972, limitTokens: 4097, inputTokens: 3222 },
  },
  {
    source: 'aboutmydreams/custom_data_gpt#2',
    error:
      '"error": "This model\'s maximum context length is 4097 tokens, however you requested 6539 tokens (6283 in your prompt; 256 for the completion). Please reduce your prompt; or completion length."',
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 6539, limitTokens: 4097, inputTokens: 6283 },
  },
  {
    source: 'run-llama/llama_index#948 (two spaces before "the completion", as published)',
    error:
      "This model's maximum context length is 4097 tokens, however you requested 4116 tokens (3860 in your prompt; 256 for  the completion). Please reduce your prompt; or completion length.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 4116, limitTokens: 4097, inputTokens: 3860 },
  },
  {
    source: 'sean1832/GPT-Brain#20',
    error:
      "InvalidRequestError: This model's maximum context length is 4097 tokens. However, you requested 4431 tokens (3431 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 4431, limitTokens: 4097, inputTokens: 3431 },
  },
  {
    source: 'crewAIInc/crewAI-examples#121',
    error:
      "openai.BadRequestError: Error code: 400 - {'error': {'message': \"This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 8227, limitTokens: 8192, inputTokens: 8227 },
  },
  {
    source: 'prcore/assistant#1',
    error:
      "error_code=context_length_exceeded error_message=\"This model's maximum context length is 4097 tokens. However, your messages resulted in 5613 tokens. Please reduce the length of the messages.\" error_param=messages error_type=invalid_request_error message='OpenAI API error received' stream_error=False",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 5613, limitTokens: 4097, inputTokens: 5613 },
  },
  {
    source: 'sugarforever/chat-ollama#130 (OpenAI embeddings)',
    error:
      "400 This model's maximum context length is 8192 tokens, however you requested 25701 tokens (25701 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.",
    overflow: true,
    provider: 'openai',
    tokens: { requestedTokens: 25701, limitTokens: 8192, inputTokens: 25701 },
  },
  {
    source: 'THUDM/LongBench#104 (vLLM; title as published)',
    error:
      "Error code: 400 - {'object': 'error', 'message': \"This model's maximum context length is 131072 tokens. However, you requested 351430 tokens. Please reduce the length of the messages or completion.\",",
    overflow: true,
    tokens: { requestedTokens: 351430, limitTokens: 131072 },
  },
  {
    source: 'stackblitz/bolt.new#2449',
    error: 'prompt is too long: 202095 tokens > 200000 maximum',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 202095, limitTokens: 200000, inputTokens: 202095 },
  },
  {
    source: 'stackblitz/bolt.new#2536',
    error: 'Chat Error: prompt is too long: 200000 tokens > 199999 maximum',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 200000, limitTokens: 199999, inputTokens: 200000 },
  },
  {
    source: 'google-gemini/gemini-cli#4692',
    error:
      '"message": "The input token count (2845475) exceeds the maximum number of tokens allowed (1048576).",',
    overflow: true,
    provider: 'google',
    tokens: { requestedTokens: 2845475, limitTokens: 1048576, inputTokens: 2845475 },
  },
  {
    source: 'google-gemini/gemini-cli#6678',
    error:
      '✕ [API Error: [{ "error": { "code": 400, "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).", "errors": [ { "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).", "domain": "global", "reason": "badRequest" } ], "status": "INVALID_ARGUMENT" } } ]]',
    overflow: true,
    provider: 'google',
    tokens: { requestedTokens: 1200293, limitTokens: 1048576, inputTokens: 1200293 },
  },
  // --- GitHub Copilot (VS Code, JetBrains, Copilot CLI and agents, and clients on its API: opencode, crush) ---
  {
    source: 'microsoft/vscode#289514 (VS Code Copilot Chat)',
    error:
      'Sorry, your request failed. Please try again. Copilot Request id: 6566a314-e3b8-4468-a018-0fcdb7809230 GH Request Id: 5186:3A5386:19CC6E:1E8D01:69715751 Reason: Request Failed: 400 {"error":{"message":"prompt token count of 514673 exceeds the limit of 128000","code":"model_max_prompt_tokens_exceeded"}}',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 514673, limitTokens: 128000, inputTokens: 514673 },
  },
  {
    source: 'microsoft/vscode#289219 (VS Code Copilot Chat)',
    error:
      'Reason: Request Failed: 400 {"error":{"message":"prompt token count of 1236658 exceeds the limit of 128000","code":"model_max_prompt_tokens_exceeded"}}',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 1236658, limitTokens: 128000, inputTokens: 1236658 },
  },
  {
    source: 'microsoft/vscode-copilot-release#6700 (the older body, without a code)',
    error:
      'Sorry, your request failed. Please try again. Request id: 674a35d7-cd80-4e32-b84b-d5722523021f Reason: Request Failed: 400 {"error":{"message":"prompt token count of 65446 exceeds the limit of 64000","param":"","code":"","type":""}}',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 65446, limitTokens: 64000, inputTokens: 65446 },
  },
  {
    source: 'microsoft/vscode-copilot-release#6803 (Spanish UI)',
    error:
      'No se pudo realizar la solicitud. Vuelva a intentarlo. Id. de solicitud: e752ede0-a832-46d8-8431-683d328af705 Motivo: Request Failed: 400 {"error":{"message":"prompt token count of 82016 exceeds the limit of 64000","param":"","code":"","type":""}}',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 82016, limitTokens: 64000, inputTokens: 82016 },
  },
  {
    source: 'microsoft/copilot-intellij-feedback#94 (JetBrains log, two lines)',
    error:
      '2025-04-14 12:42:37,628 [250149993]   INFO - #copilot - [fetchChat] request.response: [https://api.business.githubcopilot.com/chat/completions] took 5538.02879101038 ms\n2025-04-14 12:42:37,629 [250149994]   WARN - #copilot - [fetchChat] Unhandled status from server: 400 {"error":{"message":"prompt token count of 138898 exceeds the limit of 64000","code":"model_max_prompt_tokens_exceeded"}}',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 138898, limitTokens: 64000, inputTokens: 138898 },
  },
  {
    source: 'microsoft/vscode#293419 (Copilot coding agent)',
    error:
      'Error Failed to get response from the AI model; retried 5 times (total retry wait time: 5.849579995864053 seconds) (Request-ID F019:2195FF:2FEC7CB:370DA9B:6985E7DE) Last error: CAPIError: 400 prompt token count of 184399 exceeds the limit of 128000',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 184399, limitTokens: 128000, inputTokens: 184399 },
  },
  {
    source: 'opencode-ai/opencode#305 (opencode on Copilot; AI SDK APICallError: name and message as logged)',
    error: Object.assign(new Error('prompt token count of 146270 exceeds the limit of 128000'), {
      name: 'AI_APICallError',
    }),
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 146270, limitTokens: 128000, inputTokens: 146270 },
  },
  {
    source: 'anomalyco/opencode#1407 (comment)',
    error: 'AI_APICallError: prompt token count of 151316 exceeds the limit of 128000',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 151316, limitTokens: 128000, inputTokens: 151316 },
  },
  {
    source: 'ericc-ch/copilot-api#210 (Claude Code through a Copilot proxy; the body doubly encoded)',
    error:
      'API Error: 400 {"error":{"message":"{\\"error\\":{\\"message\\":\\"prompt token count of 74490 exceeds the limit of 72000\\",\\"code\\":\\"model_max_prompt_tokens_exceeded\\"}}\\n","type":"error"}}',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 74490, limitTokens: 72000, inputTokens: 74490 },
  },
  {
    source: 'jjleng/copilot-more#35 (Cline through a Copilot proxy)',
    error:
      'ERROR:copilot_more.logger:API error: {"error":{"message":"prompt token count of 93854 exceeds the limit of 90000","param":"","code":"","type":""}}',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 93854, limitTokens: 90000, inputTokens: 93854 },
  },
  {
    source: 'charmbracelet/crush#2678',
    error: 'prompt token count of 288361 exceeds the limit of 168000',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 288361, limitTokens: 168000, inputTokens: 288361 },
  },
  {
    source: 'microsoft/GitHub-Copilot-for-Azure#23 (.NET OpenAI client)',
    error:
      'System.ClientModel.ClientResultException: HTTP 400 (: )\n\nprompt token count of 65204 exceeds the limit of 64000',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 65204, limitTokens: 64000, inputTokens: 65204 },
  },
  // --- llama.cpp server's other wordings, llama-cpp-python ---
  {
    source: 'ggml-org/llama.cpp#19774 (HTTP 500)',
    error: '{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}',
    overflow: true,
    provider: 'llama.cpp',
  },
  {
    source: 'ggml-org/llama.cpp#19774 (HTTP 400, its message)',
    error: 'request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it',
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 4390, limitTokens: 4096, inputTokens: 4390 },
  },
  {
    source: 'llmmllab/llmmllab-api#202 (OpenAI Python client)',
    error:
      "Error code: 500 - {'error': {'code': 500, 'message': 'Context size has been exceeded.', 'type': 'server_error'}}",
    overflow: true,
    provider: 'llama.cpp',
  },
  {
    source: 'langchain-ai/openwiki#648',
    error:
      'Error 400 request (131168 tokens) exceeds the available context size (131072 tokens), try increasing it',
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 131168, limitTokens: 131072, inputTokens: 131168 },
  },
  {
    source:
      'arbs-io/github-copilot-llm-gateway#55 (terminal-wrapped lines joined; "n_prompt_tok" + "ens" rejoined)',
    error:
      'Reason: Chat completion request failed: Chat completion failed: 400 Bad Request - {"error":{"code":400,"message":"request (124315 tokens) exceeds the available context size (123904 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":124315,"n_ctx":123904}}',
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 124315, limitTokens: 123904, inputTokens: 124315 },
  },
  {
    source: 'ggml-org/llama.cpp#10030 (embeddings; the pretty-printed body)',
    error: {
      error: {
        code: 500,
        message: 'input is larger than the max context size. skipping',
        type: 'server_error',
      },
    },
    overflow: true,
    provider: 'llama.cpp',
  },
  {
    source: 'PromtEngineer/localGPT#441 (comment; llama-cpp-python)',
    error: 'ValueError: Requested tokens (4348) exceed context window of 4096',
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 4348, limitTokens: 4096, inputTokens: 4348 },
  },
  {
    source: 'curvedinf/dir-assistant#8 (llama-cpp-python)',
    error: 'ValueError: Requested tokens (10045) exceed context window of 10016',
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 10045, limitTokens: 10016, inputTokens: 10045 },
  },
  {
    source: 'nextcloud/context_chat_backend#27 (title; llama-cpp-python)',
    error: 'Requested tokens (5136) exceed context window of 4096',
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 5136, limitTokens: 4096, inputTokens: 5136 },
  },
  {
    source: 'jlonge4/local_llama#3 (title; older llama-cpp-python, prompt plus max_tokens, no count)',
    error: 'ValueError: Requested tokens exceed context window of 512',
    overflow: true,
    provider: 'llama.cpp',
  },
  // --- Amazon Titan on Bedrock ---
  {
    source: 'aws-samples/amazon-bedrock-workshop#136 (Titan Embeddings; trailing space as published)',
    error:
      'ValidationException: An error occurred (ValidationException) when calling the InvokeModel operation: 400 Bad Request: Too many input tokens. Max input tokens: 8192, request input token count: 9875 ',
    overflow: true,
    provider: 'bedrock',
    tokens: { requestedTokens: 9875, limitTokens: 8192, inputTokens: 9875 },
  },
  // --- HTTP 413 whose body says the window is exceeded (Anthropic, directly and through Vertex AI) ---
  {
    source: 'anthropics/claude-code#6380 (HTTP 413)',
    error:
      'API Error: 413 {"type":"error","error":{"type":"invalid_request_error","message":"Request size exceeds model context window"},"request_id":"req_011CSPcw1jaHBKxvgq8Kga6G"}',
    overflow: true,
    provider: 'anthropic',
  },
  {
    source: 'anthropics/claude-code#6368 (HTTP 413; a terminal-wrapped line joined)',
    error:
      'API Error: 413 {"type":"error","error":{"type":"invalid_request_error","message":"Request size exceeds model context window"},"request_id":"req_011CSPWKXCRRY6RUpJykZ77v"}',
    overflow: true,
    provider: 'anthropic',
  },
  {
    source: 'anthropics/claude-code#6370 (HTTP 413, the error log)',
    error:
      'Error: 413 {"type":"error","error":{"type":"invalid_request_error","message":"Request size exceeds model context window"},"request_id":"req_011CSPY4GMGWcLbbCm7tbXH7"}',
    overflow: true,
    provider: 'anthropic',
  },
  {
    source: 'anthropics/anthropic-sdk-python#1028 (Vertex AI, HTTP 413; request id elided as published)',
    error:
      "Error code: 413 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'Prompt is too long'}, 'request_id': 'req_vrtx_...'}",
    overflow: true,
    provider: 'anthropic',
  },
  {
    source:
      'anthropics/claude-code#2569 (comment; Vertex AI through a proxy, HTTP 413; unbalanced as published)',
    error:
      'API Error: 413 {"error":{"message":"{\\"type\\":\\"error\\",\\"error\\":{\\"type\\":\\"invalid_request_error\\",\\"message\\":\\"Prompt is too long\\"}}","type":"None","param":"None","code":"413"}',
    overflow: true,
    provider: 'anthropic',
  },
  // --- the input plus an output reserve that takes most of the window: overflows all the same; the sizes
  // (`requestedTokens - inputTokens` is the reserve) let a caller lower max_tokens before compacting ---
  {
    source: 'Azure/azure-sdk-for-python#40986 (124171 input + 1000000 output)',
    error:
      "Error during LLM analysis for emergency issue: (context_length_exceeded) This model's maximum context length is 128000 tokens. However, you requested 1124171 tokens (124171 in the messages, 1000000 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 1124171, limitTokens: 128000, inputTokens: 124171 },
  },
  {
    source: 'Azure/azure-sdk-for-net#41892 (max tokens 26000 of a 32768 window)',
    error:
      '{ "error": { "message": "This model\'s maximum context length is 32768 tokens. However, you requested 35969 tokens (9969 in the messages, 26000 in the completion). Please reduce the length of the messages or completion.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded" } }',
    overflow: true,
    tokens: { requestedTokens: 35969, limitTokens: 32768, inputTokens: 9969 },
  },
  {
    source: 'ChatGPTNextWeb/NextChat#3195 (64 input + 8192 output on an 8192 window)',
    error:
      '{ "error": { "message": "This model\'s maximum context length is 8192 tokens. However, you requested 8256 tokens (64 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded" } }',
    overflow: true,
    tokens: { requestedTokens: 8256, limitTokens: 8192, inputTokens: 64 },
  },
  {
    source: 'trigaten/Learn_Prompting#691 (57 input + 10000 output)',
    error:
      "OpenAI API Response was: Error 400: This model's maximum context length is 4097 tokens. However, you requested 10057 tokens (57 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 10057, limitTokens: 4097, inputTokens: 57 },
  },
  {
    source: 'acheong08/ChatGPT#501 (1044 input + 3072 output; fixed by lowering max_tokens)',
    error:
      'InvalidRequestError(message="This model\'s maximum context length is 4097 tokens, however you requested 4116 tokens (1044 in your prompt; 3072 for the completion). Please reduce your prompt; or completion length.", param=None, code=None, http_status=400, request_id=None)',
    overflow: true,
    tokens: { requestedTokens: 4116, limitTokens: 4097, inputTokens: 1044 },
  },
  {
    source: 'tatsu-lab/stanford_alpaca#47 (maintainer: lower max_new_tokens)',
    error:
      "WARNING:root:OpenAIError: This model's maximum context length is 4097 tokens, however you requested 4162 tokens (1090 in your prompt; 3072 for the completion). Please reduce your prompt; or completion length..",
    overflow: true,
    tokens: { requestedTokens: 4162, limitTokens: 4097, inputTokens: 1090 },
  },
  {
    source: 'ogx-ai/ogx#4534 (vLLM, 568 input + 6048 output on a 6048 window)',
    error:
      "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum context length is 6048 tokens. However, you requested 6616 tokens (568 in the messages, 6048 in the completion). Please reduce the length of the messages or completion.\", 'type': 'BadRequestError', 'param': None, 'code': 400}",
    overflow: true,
    tokens: { requestedTokens: 6616, limitTokens: 6048, inputTokens: 568 },
  },
  {
    source: 'vllm-project/vllm#20409 (9591 input + 10000 output on a 16384 window)',
    error:
      "Error Occurs: \"Error code: 400 - {'object': 'error', 'message': \"This model's maximum context length is 16384 tokens. However, you requested 19591 tokens (9591 in the messages, 10000 in the completion). Please reduce the length of the messages or completion. None\", 'type': 'BadRequestError', 'param': None, 'code': 400}\"",
    overflow: true,
    tokens: { requestedTokens: 19591, limitTokens: 16384, inputTokens: 9591 },
  },
  {
    source: 'claude-code-best/claude-code#272 (vLLM)',
    error:
      "Error: 400 'max_tokens' or 'max_completion_tokens' is too large: 64000. This model's maximum context length is 64001 tokens and your request has 24235 input tokens (64000 > 64001 - 24235). None",
    overflow: true,
    provider: 'vllm',
    tokens: { requestedTokens: 88235, limitTokens: 64001, inputTokens: 24235 },
  },
  {
    source: 'stackblitz/bolt.new#7414 (Anthropic, 90402 input + 116650 output)',
    error:
      'input length and max_tokens exceed context limit: 90402 + 116650 > 204648, decrease input length or max_tokens and try again',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 207052, limitTokens: 204648, inputTokens: 90402 },
  },
  {
    source: 'stackblitz/bolt.new#7422',
    error:
      'input length and max_tokens exceed context limit: 86888 + 119866 > 204648, decrease input length or max_tokens and try again',
    overflow: true,
    provider: 'anthropic',
    tokens: { requestedTokens: 206754, limitTokens: 204648, inputTokens: 86888 },
  },
  {
    source: 'Aider-AI/aider#3721 (OpenRouter, output reserve = the whole window)',
    error:
      "litellm.BadRequestError: OpenrouterException - KeyError: 'choices', Got unexpected response from OpenRouter: {'error': {'message': 'This endpoint\\'s maximum context length is 131072 tokens. However, you requested about 141607 tokens (10535 of text input, 131072 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.', 'code': 400, 'metadata': {'provider_name': 'Chutes'}}}",
    overflow: true,
    provider: 'openrouter',
    tokens: { requestedTokens: 141607, limitTokens: 131072, inputTokens: 10535 },
  },
  {
    source: 'OpenHands/OpenHands#9937 (compacting on this "causes an infinite condensation loop")',
    error:
      'this endpoint\'s maximum context length is 131072 tokens. however, you requested about 138956 tokens (7884 of text input, 131072 in the output). please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
    overflow: true,
    provider: 'openrouter',
    tokens: { requestedTokens: 138956, limitTokens: 131072, inputTokens: 7884 },
  },
  {
    source: 'HeyPuter/puter#3521 (Together, 11 input + 1048573 output)',
    error:
      '400 {"id":"ovG6YRd-6z2FuN-a2776a344b1e70b5","error":{"message":"Failed to start generation: The input token count (11) plus the requested output count (1048573) exceeds the model\'s maximum context length (1048576)","type":"invalid_request_error","param":null,"code":null}}',
    overflow: true,
    provider: 'together',
    tokens: { requestedTokens: 1048584, limitTokens: 1048576, inputTokens: 11 },
  },
  {
    source: "AIDotNet/OpenCowork#82 (vLLM's newer wording; the input is most of it)",
    error:
      "This model's maximum context length is 262144 tokens. However, you requested 128000 output tokens and your prompt contains at least 134145 input tokens, for a total of at least 262145 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=134145)",
    overflow: true,
    tokens: { requestedTokens: 262145, limitTokens: 262144, inputTokens: 134145 },
  },
  {
    source: 'AIDotNet/OpenCowork#82 (comment; 3073 input + 128000 output on a 131072 window)',
    error:
      "This model's maximum context length is 131072 tokens. However, you requested 128000 output tokens and your prompt contains at least 3073 input tokens, for a total of at least 131073 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=3073)",
    overflow: true,
    tokens: { requestedTokens: 131073, limitTokens: 131072, inputTokens: 3073 },
  },
  // --- more reports of the Copilot, llama.cpp, 413 and legacy wordings, added after the patterns were written ---
  {
    source: 'code-yeongyu/oh-my-openagent#2356 (title; Copilot)',
    error: 'prompt token count of 141422 exceeds the limit of 128000',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 141422, limitTokens: 128000, inputTokens: 141422 },
  },
  {
    source: 'microsoft/vscode-copilot-release#6747',
    error:
      'Sorry, your request failed. Please try again. Request id: d0a75d6a-58f3-4887-9468-02a1a108fd51 Reason: Request Failed: 400 {"error":{"message":"prompt token count of 87211 exceeds the limit of 64000","param":"","code":"","type":""}}',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 87211, limitTokens: 64000, inputTokens: 87211 },
  },
  {
    source: 'jjleng/copilot-more#35 (comment)',
    error:
      'copilot_more.server:stream_response:356 - API error: {"error":{"message":"prompt token count of 139639 exceeds the limit of 128000","param":"","code":"","type":""}}',
    overflow: true,
    provider: 'copilot',
    tokens: { requestedTokens: 139639, limitTokens: 128000, inputTokens: 139639 },
  },
  {
    source: 'llmmllab/llmmllab-api#69 (llama.cpp through the OpenAI Python client)',
    error:
      "Error code: 400 - {'error': {'code': 400, 'message': 'request (25837 tokens) exceeds the available context size (25088 tokens), try increasing it', 'type': 'exceed_context_size_error', 'n_prompt_tokens': 25837, 'n_ctx': 25088}}",
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 25837, limitTokens: 25088, inputTokens: 25837 },
  },
  {
    source: 'llmmllab/llmmllab-api#89 (the error field)',
    error: 'Context size has been exceeded.',
    overflow: true,
    provider: 'llama.cpp',
  },
  {
    source: 'run-llama/llama_index#8046 (title; llama-cpp-python)',
    error: 'Requested tokens (2065) exceed context window of 1800',
    overflow: true,
    provider: 'llama.cpp',
    tokens: { requestedTokens: 2065, limitTokens: 1800, inputTokens: 2065 },
  },
  {
    source: 'anthropics/claude-code#6384 (HTTP 413; request id elided as published)',
    error:
      'API Error: 413 {"type":"error","error":{"type":"invalid_request_error","message":"Request size exceeds model context window"},"request_id":"req_0......."}',
    overflow: true,
    provider: 'anthropic',
  },
  {
    source: 'anthropics/claude-code#6364 (HTTP 413; "erro r" as published)',
    error:
      'API Error: 413 {"type":"error","error":{"type":"invalid_request_erro r","message":"Request size exceeds model context window"},"request_id":"req_011CSPNuAhthTRUQTGE2aT3i"}',
    overflow: true,
    provider: 'anthropic',
  },
  {
    source: 'CommandCodeAI/command-code#911 (a terminal-wrapped line joined; cut short as published)',
    error:
      "⚠ Error: 400 This model's maximum context length is 1048576 tokens. However, you requested 1049054 tokens (985054 in the messages, 64000 in the completion). Please reduce the length of the messages or completi...",
    overflow: true,
    tokens: { requestedTokens: 1049054, limitTokens: 1048576, inputTokens: 985054 },
  },
  // --- other servers and gateways (vLLM, SGLang, TGI, llama.cpp forks, Cloudflare, Bedrock Mantle,
  // Moonshot, Zhipu, Volcengine, SambaNova, TabbyAPI, NIM) and app pre-checks, worded their own way ---
  {
    source: 'OpenBMB/MiniCPM-V#1048',
    error:
      "openai.BadRequestError: Error code: 400 - {'error': {'message': 'The decoder prompt (length 2136) is longer than the maximum model length of 2048. }}",
    overflow: true,
    tokens: { requestedTokens: 2136, limitTokens: 2048, inputTokens: 2136 },
  },
  {
    source: 'xorbitsai/inference#3785 (Xinference on vLLM)',
    error:
      'ValueError: [address=0.0.0.0:37591, pid=324770] The decoder prompt (length 17772) is longer than the maximum model length of 16384.',
    overflow: true,
    tokens: { requestedTokens: 17772, limitTokens: 16384, inputTokens: 17772 },
  },
  {
    source: 'nvidia-cosmos/cosmos-rl#403',
    error:
      'ValueError: The decoder prompt (length 16476) is longer than the maximum model length of 16384. Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens. For image inputs, the number of image tokens depends on the number of images, and possibly their aspect ratios as well.',
    overflow: true,
    tokens: { requestedTokens: 16476, limitTokens: 16384, inputTokens: 16476 },
  },
  {
    source: 'unslothai/unsloth#2666',
    error:
      'ValueError: The decoder prompt (length 322) is longer than the maximum model length of 256. Make sure that `max_model_len` is no smaller than the number of text tokens.',
    overflow: true,
    tokens: { requestedTokens: 322, limitTokens: 256, inputTokens: 322 },
  },
  {
    source: 'hiyouga/LlamaFactory#7723 (vLLM V1)',
    error: 'ValueError: Prompt length of 5016 is longer than the maximum model length of 4096.',
    overflow: true,
    tokens: { requestedTokens: 5016, limitTokens: 4096, inputTokens: 5016 },
  },
  {
    source: 'cloudflare/cloudflare-docs#29731',
    error:
      "AiError: This model's maximum context length is 131072 tokens.\nHowever, you requested 16000 output tokens and your prompt contains\nat least 115073 input tokens, for a total of at least 131073 tokens.\nPlease reduce the length of the input prompt or reduce max_tokens.",
    overflow: true,
    tokens: { requestedTokens: 131073, limitTokens: 131072, inputTokens: 115073 },
  },
  {
    source: 'anomalyco/models.dev#4422 (Workers AI /ai/v1/chat/completions, @cf/zai-org/glm-5.2)',
    error:
      "Requested token count exceeds the model's maximum context length of 256000 tokens. You requested a total of 256878 tokens: 31216 tokens from the input messages and 225662 tokens for the completion.",
    overflow: true,
    tokens: { requestedTokens: 256878, limitTokens: 256000, inputTokens: 31216 },
  },
  {
    source: 'anomalyco/opencode#25230',
    error:
      "Bad Request: Requested token count exceeds the model's maximum context length of 202752 tokens. You requested a total of 202941 tokens: 170941 tokens from the input messages and 32000 tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.",
    overflow: true,
    tokens: { requestedTokens: 202941, limitTokens: 202752, inputTokens: 170941 },
  },
  {
    source: 'QwenLM/Qwen3#1321',
    error:
      '{"object":"error","message":"The input (61709 tokens) is longer than the model\\\'s context length (40960 tokens).","type":"BadRequestError","param":null,"code":400}',
    overflow: true,
    tokens: { requestedTokens: 61709, limitTokens: 40960, inputTokens: 61709 },
  },
  {
    source: 'sgl-project/sglang#4048 (title)',
    error: 'Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens).',
    overflow: true,
    tokens: { requestedTokens: 160062, limitTokens: 59862, inputTokens: 160062 },
  },
  {
    source: 'cline/cline#294 (api.sambanova.ai/v1)',
    error:
      'Requested generation length 1 is not possible! The provided prompt is 4309 tokens long, so generating 1 tokens requires a sequence length of 4310, but the maximum supported sequence length is just 4096!',
    overflow: true,
    tokens: { requestedTokens: 4310, limitTokens: 4096, inputTokens: 4309 },
  },
  {
    source: 'huggingface/huggingface_hub#1735',
    error:
      "huggingface_hub.utils._errors.BadRequestError:  (Request ID: <redacted>)\nBad request:\nInput is too long for this model, shorten your input or use 'parameters': {'truncation': 'only_first'} to run the model only on the first part.",
    overflow: true,
  },
  {
    source: 'run-llama/llama_index#145',
    error:
      "ValueError: Error raised by inference API: Input is too long for this model, shorten your input or use 'parameters': {'truncation': 'only_first'} to run the model only on the first part.",
    overflow: true,
  },
  {
    source: 'alejandro-ao/ask-multiple-pdfs#34',
    error:
      'ValueError: Error raised by inference API: Input validation error: `inputs` must have less than 1024 tokens. Given: 1062',
    overflow: true,
    tokens: { requestedTokens: 1062, limitTokens: 1024, inputTokens: 1062 },
  },
  {
    source: 'huggingface/huggingface_hub#1735 (maintainer comment)',
    error:
      'huggingface_hub.inference._text_generation.ValidationError: Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192. Given: 37500 `inputs` tokens and 20 `max_new_tokens`',
    overflow: true,
    tokens: { requestedTokens: 37520, limitTokens: 8192, inputTokens: 37500 },
  },
  {
    source: 'huggingface/chat-ui#340',
    error:
      'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 1512. Given: 1000 `inputs` tokens and 1024 `max_new_tokens`',
    overflow: true,
    tokens: { requestedTokens: 2024, limitTokens: 1512, inputTokens: 1000 },
  },
  {
    source: 'zeroclaw-labs/zeroclaw#4124',
    error:
      'Z.AI API error (400 Bad Request): {"error":{"code":"1261","message":"Prompt exceeds max length"}}',
    overflow: true,
  },
  {
    source: 'mangowhoiscloud/geode#668',
    error: "Error code: 400 {'code': '1261', 'message': 'Prompt exceeds max length'}",
    overflow: true,
  },
  {
    source: 'open-webui/open-webui#1141',
    error:
      "OpenAIException - Error code: 400 - {'error': {'message': 'model max length exceeded, max length: 8192', 'type': 'invalid_request_error'}}",
    overflow: true,
  },
  {
    source: 'MoonshotAI/MoonshotAI-Cookbook#18 (title)',
    error: "code: 400 - {'error': {'message': 'model max length exceeded, max length:8192',",
    overflow: true,
  },
  {
    source: 'MoonshotAI/kimi-cli#2011 (terminal wrap "re quested" joined)',
    error:
      "LLM provider error: Error code: 400 - {'error': {'message': 'Invalid request: Your request exceeded model token limit: 262144 (requested: 269030)', 'type': 'invalid_request_error'}}",
    overflow: true,
    tokens: { requestedTokens: 269030, limitTokens: 262144 },
  },
  {
    source: 'esengine/DeepSeek-Reasonix#9696',
    error:
      'Malformed request (HTTP 400): the request body was rejected. This is likely a bug — please report it if it persists. Input length 1048826 exceeds the maximum length 1048566. Request id: 021788256632854add9fca5277b8939d33af9a0f1789d6cf09b11',
    overflow: true,
    tokens: { requestedTokens: 1048826, limitTokens: 1048566, inputTokens: 1048826 },
  },
  {
    source: 'agentscope-ai/QwenPaw#6255',
    error:
      "openai.BadRequestError: Error code: 400 - {'error': {'code': 'invalid_parameter_error', 'message': '<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 983616]', 'param': None, 'type': 'invalid_request_error'}, 'request_id': '81a373d6-28bd-9968-8335-e22a2127c41b'}",
    overflow: true,
  },
  {
    source: 'QwenLM/qwen-code#98',
    error:
      'OpenAI API error: 400 <400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 204800]',
    overflow: true,
  },
  {
    source: 'forcedotcom/Einstein-GPT-for-Developers#228',
    error: 'Error : Request input tokens exceed model token limit. Reduce the input size.',
    overflow: true,
  },
  {
    source: 'forcedotcom/Einstein-GPT-for-Developers#198',
    error: 'API request failed Error message is: Provider context length exceeded.',
    overflow: true,
  },
  {
    source: 'arkavo-org/arkavo-edge#371',
    error:
      'Error: Model execution failed: Provider error: Provider error: Gemini streaming error: API error: HTTP 400 Bad Request: {\n  "error": {\n    "code": 400,\n    "message": "The input token count exceeds the maximum number of tokens allowed (1048576).",\n    "status": "INVALID_ARGUMENT"\n  }\n}',
    overflow: true,
  },
  {
    source: 'second-state/WasmEdge-WASINN-examples#50',
    error:
      '[2023-10-14 17:39:06.691] [error] [WASI-NN] GGML backend: Error: prompt too long (570 tokens, max 508)',
    overflow: true,
    tokens: { requestedTokens: 570, limitTokens: 508, inputTokens: 570 },
  },
  {
    source: 'BerriAI/litellm#18927',
    error:
      'ContextWindowExceededError: OpenAIException - Input tokens exceed the configured limit of 272000 tokens.',
    overflow: true,
  },
  {
    source: 'BrokkAi/brokk-app#540',
    error:
      '{"error":{"message":"litellm.BadRequestError: AnthropicException - b\'{\\"type\\":\\"error\\",\\"error\\":{\\"type\\":\\"invalid_request_error\\",\\"message\\":\\"input length and `max_tokens` exceed context limit: 179413 + 32768 > 200000, decrease input length or `max_tokens` and try again\\"}}\'. Received Model Group=anthropic/claude-sonnet-4-20250514\\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}',
    overflow: true,
    tokens: { requestedTokens: 212181, limitTokens: 200000, inputTokens: 179413 },
  },
  {
    source:
      'strands-agents/harness-sdk#3969 (zai.glm-5 / minimax-m2.5 on Bedrock Mantle; "..." as published)',
    error:
      'ValidationException: ... Mantle streaming error for requestId ...:\n"This model\'s maximum context length is 202752 tokens. However, you requested 65536\n output tokens and your prompt contains at least 137217 input tokens, for a total of\n at least 202753 tokens. Please reduce the length of the input prompt or the number\n of requested output tokens. (parameter=input_tokens, value=137217)"',
    overflow: true,
    tokens: { requestedTokens: 202753, limitTokens: 202752, inputTokens: 137217 },
  },
  {
    source: 'BerriAI/litellm#37862 (body as quoted; trailing ",..." of the quote dropped)',
    error:
      '{"error":{"code":"validation_error","message":"prompt tokens (400007) exceed model maximum (278528) for openai.gpt-5.5"}}',
    overflow: true,
    tokens: { requestedTokens: 400007, limitTokens: 278528, inputTokens: 400007 },
  },
  {
    source: 'strands-agents/harness-sdk#3722',
    error: 'prompt tokens (1200008) exceed model maximum (1050000) for openai.gpt-5.6-terra',
    overflow: true,
    tokens: { requestedTokens: 1200008, limitTokens: 1050000, inputTokens: 1200008 },
  },
  {
    source: 'strands-agents/harness-sdk#1712',
    error:
      'botocore.exceptions.ClientError: An error occurred (ValidationException) when calling\nthe ConverseStream operation: The model returned the following errors:\nprompt is too long: 203470 tokens > 200000 maximum',
    overflow: true,
    tokens: { requestedTokens: 203470, limitTokens: 200000, inputTokens: 203470 },
  },
  {
    source: 'OpenHands/OpenHands#5350',
    error:
      'litellm.BadRequestError: OpenAIException - Error code: 400 - {\'error\': {\'message\': \'litellm.BadRequestError: BedrockException - {"message":"messages.32.content: Conversation blocks and tool result blocks cannot be provided in the same turn."}\\n. Enable \\\'litellm.modify_params=True\\\' (for PROXY do: `litellm_settings::modify_params: True`) to insert a dummy assistant message and fix this error.\\nReceived Model Group=claude-3-5-sonnet-20241022\\nAvailable Model Group Fallbacks=[\\\'anthropic/claude-3-5-sonnet-20241022\\\']\\nError doing the fallback: litellm.BadRequestError: litellm.ContextWindowExceededError: AnthropicError - {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 209303 tokens > 200000 maximum"}}\\nReceived Model Group=anthropic/claude-3-5-sonnet-20241022\\nAvailable Model Group Fallbacks=None\\nError doing the fallback: litellm.BadRequestError: litellm.ContextWindowExceededError: AnthropicError - {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 209303 tokens > 200000 maximum"}}\', \'type\': None, \'param\': None, \'code\': \'400\'}}',
    overflow: true,
    tokens: { requestedTokens: 209303, limitTokens: 200000, inputTokens: 209303 },
  },
  {
    source: 'SillyTavern/SillyTavern#3543',
    error: 'ERROR:    ValueError: Request length 71599 + 2048 is greater than max_seq_len 65536',
    overflow: true,
    tokens: { requestedTokens: 73647, limitTokens: 65536, inputTokens: 71599 },
  },
  {
    source: 'NVIDIA/nim-anywhere#58 (reranker NIM log line)',
    error:
      "Invalid request error: in ensemble 'nvidia_nv_rerankqa_mistral_4b_v3', Input length 1024 exceeds maximum allowed token size 512",
    overflow: true,
    tokens: { requestedTokens: 1024, limitTokens: 512, inputTokens: 1024 },
  },
  {
    source: 'nomic-ai/gpt4all#1638',
    error: 'ERROR: The prompt size exceeds the context window size and cannot be processed.',
    overflow: true,
  },
  {
    source: 'zylon-ai/private-gpt#663',
    error:
      'ERROR: The prompt size exceeds the context window size and cannot be processed.GPT-J ERROR: The prompt is4233tokens and the context window is2048!',
    overflow: true,
  },
  {
    source: 'ggml-org/llama.cpp#9544 (send_error text, as corrected in review)',
    error: 'Input is too large to process. Either enable context shift or increase context length. ',
    overflow: true,
  },
  {
    source: 'gpustack/gpustack#1357 (comment)',
    error: 'error: input prompt is too big compared to KV size, please increase KV size',
    overflow: true,
  },
  {
    source:
      'gpustack/gpustack#1241 (generation ran past the context; same class as LM Studio mid-generation overflow, which the library counts)',
    error: 'send_error: task 2 | error = context shift is disabled',
    overflow: true,
  },
  {
    source: 'gpustack/gpustack#1241',
    error:
      'send_error: task 3 | error = the request exceeds the available context size. try increasing the context size or enable context shift',
    overflow: true,
  },
  {
    source: 'earendil-works/pi#6378',
    error:
      'Error: 400: {"message":"This endpoint\'s maximum context length is 262000 tokens. However, you requested about 263390 tokens (658   \n of text input, 732 of tool input, 262000 in the output). Please reduce the length of either one, or use the context-compression    \n plugin to compress your prompt automatically.","code":400,"metadata":{"provider_name":null}}',
    overflow: true,
    tokens: { requestedTokens: 263390, limitTokens: 262000, inputTokens: 1390 },
  },
  {
    source: 'BerriAI/litellm#18282 (gemini-2.5-flash wording)',
    error: 'The input token count exceeds the maximum number of tokens allowed (1048576).',
    overflow: true,
  },
  {
    source: 'rowboatlabs/rowboat#514 (AI SDK APICallError as logged; 2013 is an error code, not a size)',
    error:
      'name: AI_APICallError\nresponseBody: {"type":"error","error":{"type":"bad_request_error","message":"invalid params, context window exceeds limit (2013)","http_code":"400"},"request_id":"06340988ef34a8f048d8267af65d3228"}',
    overflow: true,
  },
  {
    source: 'chatboxai/chatbox#2060',
    error:
      'API Error: Status Code 400, {"code":20015,"message":"length of prompt_tokens (68957) must be less than max_seq_len (65536).","data":null}',
    overflow: true,
    tokens: { requestedTokens: 68957, limitTokens: 65536, inputTokens: 68957 },
  },
  {
    source: 'PaddlePaddle/ERNIE-SDK#336 (title)',
    error: 'BadRequestError: prompt tokens too long',
    overflow: true,
  },
  {
    source: 'fengshao1227/ccg-workflow#69 (Chinese Anthropic-compatible relay; type "prompt_limit")',
    error:
      'API Error: 400 {"type":"error","error":{"type":"prompt_limit","message":"输入内容过长，请减少 Prompt 中的 token 数量后重试 (cch_session_id: 1b2f73a9-f879-4ec4-b392-63b2fedf91f6)"}}',
    overflow: true,
  },
  {
    source: 'langgenius/dify#1435 (title; Dify gateway pre-check)',
    error:
      'Query or prefix prompt is too long, you can reduce the prefix prompt, or shrink the max token, or switch to a llm with a larger token limit size',
    overflow: true,
  },
  {
    source: 'danny-avila/LibreChat#3651 (LibreChat server pre-check)',
    error:
      '[handleAbortError] AI response error; aborting request: Prompt token count of 4662 exceeds max token count of 4095.',
    overflow: true,
    tokens: { requestedTokens: 4662, limitTokens: 4095, inputTokens: 4662 },
  },
  {
    source: 'bytedance/UI-TARS-desktop#626 (OpenAI JS SDK against a TGI endpoint)',
    error:
      'Error: 422 "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 65537. Given: 79993 `inputs` tokens and 1024 `max_new_tokens`"',
    overflow: true,
    tokens: { requestedTokens: 81017, limitTokens: 65537, inputTokens: 79993 },
  },
  {
    source: 'FlowiseAI/Flowise#1711 (Azure gpt-4-32k deployment)',
    error:
      "This model's maximum context length is 4096 tokens. However, your messages resulted in 4106 tokens (4054 in the messages, 52 in the functions). Please reduce the length of the messages or functions.",
    overflow: true,
    tokens: { requestedTokens: 4106, limitTokens: 4096, inputTokens: 4106 },
  },
  {
    source: 'hncboy/ai-beehive#50 (requested == limit; almost all of it output reserve)',
    error:
      '"error": {\n    "message": "This model\'s maximum context length is 8192 tokens. However, you requested 8192 tokens (58 in the messages, 8134 in the completion). Please reduce the length of the messages or completion.",\n    "type": "invalid_request_error",\n    "param": "messages",\n    "code": "context_length_exceeded"\n  }',
    overflow: true,
    tokens: { requestedTokens: 8192, limitTokens: 8192, inputTokens: 58 },
  },
  {
    source: 'google-gemini/gemini-cli#9775 (terminal-wrapped as published)',
    error:
      '✕ [API Error: [{\n    "error": {\n      "code": 400,\n      "message": "The input token count (5911388) exceeds the maximum number of tokens allowed\n  (1048576).",\n      "errors": [\n        {\n          "message": "The input token count (5911388) exceeds the maximum number of tokens allowed\n  (1048576).",\n          "domain": "global",\n          "reason": "badRequest"\n        }\n      ],\n      "status": "INVALID_ARGUMENT"\n    }\n  }\n  ]]',
    overflow: true,
    tokens: { requestedTokens: 5911388, limitTokens: 1048576, inputTokens: 5911388 },
  },
  // --- a holdout of later errors (kept apart until the rules above were written; in the table since) ---
  {
    source: 'dirk1983/deepseek#11',
    error:
      "Server returned an error message：This model's maximum context length is 4096 tokens. However, you requested 4222 tokens (1222 in the messages, 3000 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 4222, limitTokens: 4096, inputTokens: 1222 },
  },
  {
    source: 'AIAnytime/Zephyr-7B-beta-RAG-Demo#3 (ctransformers)',
    error: 'Number of tokens (2662) exceeded maximum context length (512).',
    overflow: true,
    tokens: { requestedTokens: 2662, limitTokens: 512, inputTokens: 2662 },
  },
  {
    source: 'ChatGPTNextWeb/NextChat#625',
    error:
      '{\n  "error": {\n    "message": "This model\'s maximum context length is 4097 tokens. However, your messages resulted in 4619 tokens. Please reduce the length of the messages.",\n    "type": "invalid_request_error",\n    "param": "messages",\n    "code": "context_length_exceeded"\n  }\n}',
    overflow: true,
    tokens: { requestedTokens: 4619, limitTokens: 4097, inputTokens: 4619 },
  },
  {
    source: 'orhanerday/ChatGPT#17',
    error:
      "This model's maximum context length is 4097 tokens. However, your messages resulted in 192871 tokens. Please reduce the length of the messages.",
    overflow: true,
    tokens: { requestedTokens: 192871, limitTokens: 4097, inputTokens: 192871 },
  },
  {
    source: 'leookun/cursor-byok#129 (GLM-5.1 (SiliconFlow-style code 20015))',
    error:
      'openai adapter status=400 body={"code":20015,"message":"number of input tokens (204703) has exceeded max_prompt_tokens (202752) limit.","data":null}',
    overflow: true,
    tokens: { requestedTokens: 204703, limitTokens: 202752, inputTokens: 204703 },
  },
  {
    source: 'StampyAI/stampy-chat#133',
    error:
      "This model's maximum context length is 4097 tokens. However, you requested 4232 tokens (3107 in the messages, 1125 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 4232, limitTokens: 4097, inputTokens: 3107 },
  },
  {
    source: 'bytedance/deer-flow#310',
    error:
      "BadRequestError('Error code: 400 - {\\'error\\': {\\'message\\': \"This model\\'s maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens (202767 in the messages, 101 in the functions). Please reduce the length of the messages or functions.\", \\'type\\': \\'invalid_request_error\\', \\'param\\': \\'messages\\', \\'code\\': \\'context_length_exceeded\\'}}')",
    overflow: true,
    tokens: { requestedTokens: 202868, limitTokens: 128000, inputTokens: 202868 },
  },
  {
    source: 'anthropics/claude-code#62560',
    error:
      '{"error":"Error: 400 {\\"type\\":\\"error\\",\\"error\\":{\\"type\\":\\"invalid_request_error\\",\\"message\\":\\"prompt is too long: 211180 tokens > 200000 maximum\\"},\\"request_id\\":\\"req_011CbRHLp6ffMfsnsULngXLv\\"}\\n    at generate (/$bunfs/root/src/entrypoints/cli.js:11:63341)\\n    at makeRequest (/$bunfs/root/src/entrypoints/cli.js:51:7694)\\n    at processTicksAndRejections (native:7:39)","timestamp":"2026-05-26T13:46:09.058Z"}',
    overflow: true,
    tokens: { requestedTokens: 211180, limitTokens: 200000, inputTokens: 211180 },
  },
  {
    source: 'entropy-research/Devon#88',
    error:
      'litellm.BadRequestError: litellm.ContextWindowExceededError: AnthropicError - {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 209353 tokens > 199999 maximum"}}',
    overflow: true,
    tokens: { requestedTokens: 209353, limitTokens: 199999, inputTokens: 209353 },
  },
  {
    source: 'anthropics/claude-code#14195',
    error:
      'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 191989 tokens > 180000 maximum"},"request_id":"req_011CWAgPbMohjStFaYrkLZCm"}',
    overflow: true,
    tokens: { requestedTokens: 191989, limitTokens: 180000, inputTokens: 191989 },
  },
  {
    source: 'google-gemini/gemini-cli#11916',
    error:
      '✕ [API Error: [{\n    "error": {\n      "code": 400,\n      "message": "The input token count (218152) exceeds the maximum number of tokens allowed (65536).",\n      "errors": [\n        {\n          "message": "The input token count (218152) exceeds the maximum number of tokens allowed (65536).",\n          "domain": "global",\n          "reason": "badRequest"\n        }\n      ],\n      "status": "INVALID_ARGUMENT"\n    }\n  }\n  ]]',
    overflow: true,
    tokens: { requestedTokens: 218152, limitTokens: 65536, inputTokens: 218152 },
  },
  {
    source: 'google-gemini/gemini-cli#4231',
    error:
      '[API Error: {"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 400,\\n    \\"message\\": \\"The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).\\",\\n    \\"status\\": \\"INVALID_ARGUMENT\\"\\n  }\\n}\\n","code":400,"status":"Bad Request"}}]',
    overflow: true,
    tokens: { requestedTokens: 3475108, limitTokens: 1048576, inputTokens: 3475108 },
  },
  {
    source: 'google-gemini/gemini-cli#4118',
    error:
      '[API Error: got status: INVALID_ARGUMENT. {"error":{"code":400,"message":"The input token count (132478) exceeds the maximum number of tokens allowed (131072).","status":"INVALID_ARGUMENT"}}]',
    overflow: true,
    tokens: { requestedTokens: 132478, limitTokens: 131072, inputTokens: 132478 },
  },
  {
    source: 'vllm-project/vllm#13209 (vLLM scheduler log line)',
    error:
      'WARNING 02-13 07:19:11 scheduler.py:949] Input prompt (32889 tokens) is too long and exceeds limit of 2048',
    overflow: true,
    tokens: { requestedTokens: 32889, limitTokens: 2048, inputTokens: 32889 },
  },
  {
    source: 'hiyouga/LlamaFactory#3241 (issue title)',
    error: '使用vllm推理引擎的时候提示Input prompt (5556 tokens) is too long and exceeds limit of 2048',
    overflow: true,
    tokens: { requestedTokens: 5556, limitTokens: 2048, inputTokens: 5556 },
  },
  {
    source: 'EvolvingLMMs-Lab/lmms-eval#711',
    error:
      'ValueError: The decoder prompt (length 337896) is longer than the maximum model length of 128000. Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens. For image inputs, the\n number of image tokens depends on the number of images, and possibly their aspect ratios as well.',
    overflow: true,
    tokens: { requestedTokens: 337896, limitTokens: 128000, inputTokens: 337896 },
  },
  {
    source: 'vllm-project/vllm#687',
    error: 'Input prompt (15681 tokens) is too long and exceeds limit of 2560',
    overflow: true,
    tokens: { requestedTokens: 15681, limitTokens: 2560, inputTokens: 15681 },
  },
  {
    source: 'ggml-org/llama.cpp#12113 (llama-simple-chat, during generation)',
    error: 'context size exceeded',
    overflow: true,
  },
  {
    source: 'phronmophobic/llama.clj#13',
    error:
      'Execution error (AssertionError) at com.phronemophobic.llama.raw/llama-eval* (raw.clj:284).\nAssert failed: Context size exceeded\n(< n-past (llama_n_ctx ctx))',
    overflow: true,
  },
  {
    source: 'huggingface/text-generation-inference#695',
    error: 'ValidationError: Input validation error: `inputs` must have less than 1024 tokens. Given: 1168.',
    overflow: true,
    tokens: { requestedTokens: 1168, limitTokens: 1024, inputTokens: 1168 },
  },
  {
    source: 'huggingface/text-generation-inference#628',
    error:
      'ValidationError: Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 1244 `inputs` tokens and 1000 `max_new_tokens`',
    overflow: true,
    tokens: { requestedTokens: 2244, limitTokens: 2048, inputTokens: 1244 },
  },
  {
    source: 'huggingface/huggingface_hub#2763',
    error:
      '{\n    "error": {\n        "message": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 8740 `inputs` tokens and 500 `max_new_tokens`",\n        "http_status_code": 422\n    }\n}',
    overflow: true,
    tokens: { requestedTokens: 9240, limitTokens: 4096, inputTokens: 8740 },
  },
  {
    source: 'unclecode/crawl4ai#44',
    error:
      "[ERROR] 🚫 Failed to crawl https://www.cen-change.com/achat-vente-devise/#Cours-et-Taux-de-Change, error: litellm.BadRequestError: BadRequestError: GroqException - Error code: 400 - {'error': {'message': 'Please reduce the length of the messages or completion.', 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}\nNone",
    overflow: true,
  },
  {
    source: 'yakGPT/yakGPT#13',
    error:
      "This model's maximum context length is 4097 tokens. However, you requested 4295 tokens (3245 in the messages, 1050 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 4295, limitTokens: 4097, inputTokens: 3245 },
  },
  {
    source: 'AsyncFuncAI/deepwiki-open#144',
    error:
      "2025-05-27 11:52:58,468 - 105 _common.py:_log_backoff - INFO - Backing off acall(...) for 1.3s (openai.BadRequestError: Error code: 400 - {'error': {'message': \"This model's maximum context length is 128000 tokens. However, your messages resulted in 173172 tokens. Please reduce the length of the messages.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}})",
    overflow: true,
    tokens: { requestedTokens: 173172, limitTokens: 128000, inputTokens: 173172 },
  },
  {
    source: 'QwenLM/qwen-code#2068 (DashScope; limit only)',
    error:
      'Error: Internal error (code: -32603)\nData: {“details”:“<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 983616]”}',
    overflow: true,
  },
  {
    source: 'QwenLM/qwen-code#2481 (DashScope; limit only)',
    error:
      'Internal error: 400 <400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 983616]',
    overflow: true,
  },
  {
    source: 'CherryHQ/cherry-studio#5388 (Aliyun DashScope deepseek-r1)',
    error:
      '{\n  "message": "400 <400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 57344]",\n  "status": 400,\n  "error": {\n    "code": "invalid_parameter_error",\n    "param": null,\n    "message": "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 57344]",\n    "type": "invalid_request_error"\n  },\n  "code": "invalid_parameter_error",\n  "param": null,\n  "type": "invalid_request_error"\n}',
    overflow: true,
  },
  {
    source: 'LLM-Red-Team/qwen-free-api#23',
    error:
      '{"code":"InvalidParameter","message":"Range of input length should be [1, 6000]","request_id":"xxxxxx-xxx-xxx-xxx-xxx"}',
    overflow: true,
  },
  {
    source: 'ITSpecialist111/ai_automation_suggester#37 (Ollama runner log)',
    error:
      'time=2024-11-19T19:56:32.863Z level=WARN source=runner.go:122 msg="input exceeds context length" prompt=2782 limit=2048',
    overflow: true,
    tokens: { requestedTokens: 2782, limitTokens: 2048, inputTokens: 2782 },
  },
  {
    source: 'lmstudio-ai/lmstudio-bug-tracker#237 (title; count only, no limit)',
    error:
      'BadRequestError 400--<LM Studio error> Trying to keep the first 15857 tokens when context the overflows.',
    overflow: true,
  },
  {
    source: 'anomalyco/opencode#11141 (LM Studio)',
    error: 'Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)',
    overflow: true,
    tokens: { requestedTokens: 15028, limitTokens: 7424, inputTokens: 15028 },
  },
  {
    source: 'lmstudio-ai/lmstudio-bug-tracker#2205',
    error:
      'Uh-oh! There was an issue with the response.\nThe number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input',
    overflow: true,
  },
  {
    source: 'FoundationAgents/OpenManus#79',
    error:
      "2025-03-07 15:41:02.741 | ERROR    | app.llm:ask_tool:250 - API error: Error code: 400 - {'error': {'message': \"This model's maximum context length is 65536 tokens. However, you requested 66343 tokens (62247 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.\", 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_request_error'}}",
    overflow: true,
    tokens: { requestedTokens: 66343, limitTokens: 65536, inputTokens: 62247 },
  },
  {
    source: 'bytedance/deer-flow#66',
    error:
      "openai.BadRequestError: Error code: 400 - {'error': {'message': \"This model's maximum context length is 65536 tokens. However, you requested 87731 tokens (87731 in the messages, 0 in the completion). Please reduce the length of the messages or completion.\", 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_request_error'}}",
    overflow: true,
    tokens: { requestedTokens: 87731, limitTokens: 65536, inputTokens: 87731 },
  },
  {
    source: 'stackblitz-labs/bolt.diy#1088',
    error:
      "This model's maximum context length is 65536 tokens. However, you requested 69135 tokens (61135 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 69135, limitTokens: 65536, inputTokens: 61135 },
  },
  {
    source: 'jina-ai/node-DeepResearch#87',
    error:
      "AI_APICallError: This model's maximum context length is 65536 tokens. However, you requested 74426 tokens (72426 in the messages, 2000 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 74426, limitTokens: 65536, inputTokens: 72426 },
  },
  {
    source: 'musistudio/claude-code-router#895 (terminal-wrapped as published)',
    error:
      'API Error: 400 {"error":{"message":"Error from provider(deepseek,deepseek-chat: 400): {\\"error\\":{\\"message\\":\\"This model\'s maximum context length is 131072 tokens. However, you \n    requested 131329 tokens (123137 in the messages, 8192 in the completion). Please reduce the length of the messages or \n    completion.\\",\\"type\\":\\"invalid_request_error\\",\\"param\\":null,\\"code\\":\\"invalid_request_error\\"}}Error: Error from provider(deepseek,deepseek-chat: 400): ',
    overflow: true,
    tokens: { requestedTokens: 131329, limitTokens: 131072, inputTokens: 123137 },
  },
  {
    source: 'RooCodeInc/Roo-Code#1767 (lower-cased by client)',
    error:
      "error msg:400 this model's maximum context length is 65536 tokens. however, you requested 69648 tokens (69648 in the messages, 0 in the completion). please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 69648, limitTokens: 65536, inputTokens: 69648 },
  },
  {
    source: 'BerriAI/litellm#10431',
    error:
      '2025-04-30 15:32:19,764 - WARNING - Error on attempt 2/3: litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: DeepseekException - {"error":{"message":"This model\'s maximum context length is 65536 tokens. However, you requested 68161 tokens (68161 in the messages, 0 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}',
    overflow: true,
    tokens: { requestedTokens: 68161, limitTokens: 65536, inputTokens: 68161 },
  },
  {
    source: 'rahul2002m/ChatPDF#6',
    error:
      "BadRequestError: Error code: 400 - {'error': {'message': \"This model's maximum context length is 4097 tokens. However, your messages resulted in 6988 tokens. Please reduce the length of the messages.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}.",
    overflow: true,
    tokens: { requestedTokens: 6988, limitTokens: 4097, inputTokens: 6988 },
  },
  {
    source: 'h2oai/h2ogpt#366',
    error:
      "Generation Failed: This model's maximum context length is 4097 tokens. However, you requested 4696 tokens (3672 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 4696, limitTokens: 4097, inputTokens: 3672 },
  },
  {
    source: 'mckaywrigley/repo-chat#15 (issue title)',
    error:
      "InvalidRequestError: This model's maximum context length is 4097 tokens. However, your messages resulted in 13393 tokens. Please reduce the length of the messages.",
    overflow: true,
    tokens: { requestedTokens: 13393, limitTokens: 4097, inputTokens: 13393 },
  },
  {
    source: 'danny-avila/LibreChat#5004 (LibreChat client-side pre-check)',
    error: 'warn: Prompt token count exceeds max token count (5910 / 4095).',
    overflow: true,
    tokens: { requestedTokens: 5910, limitTokens: 4095, inputTokens: 5910 },
  },
  {
    source: 'AstrBotDevs/AstrBot#1',
    error:
      "openai.error.InvalidRequestError: This model's maximum context length is 4097 tokens, however you requested 4569 tokens (3545 in your prompt; 1024 for the completion). Please reduce your prompt; or completion length.",
    overflow: true,
    tokens: { requestedTokens: 4569, limitTokens: 4097, inputTokens: 3545 },
  },
  {
    source: 'microsoft/vscode-copilot-release#1456 (VS Code LM API; escaped newlines as published)',
    error:
      'Error: Message exceeds token limit.\\n    at VR._provideLanguageModelResponse (/Users/myuser/.vscode/extensions/github.copilot-chat-0.18.1/dist/extension.js:634:4090)\\n    at processTicksAndRejections (node:internal/process/task_queues:95:5)',
    overflow: true,
  },
  {
    source: 'MiniMax-AI/MiniMax-M2#119 (title; 2013 is an error code)',
    error: '[Bug]: invalid params, context window exceeds limit (2013)',
    overflow: true,
  },
  {
    source: 'langgenius/dify#19394 (SiliconFlow)',
    error: 'length of prompt_tokens (57535) must be less than max_seq_len (32768)',
    overflow: true,
    tokens: { requestedTokens: 57535, limitTokens: 32768, inputTokens: 57535 },
  },
  {
    source: 'run-llama/llama_index#12119',
    error:
      "Retrying llama_index.llms.openai.base.OpenAI._chat in 0.5068796395583202 seconds as it raised BadRequestError: Error code: 400 - {'error': {'message': \"This model's maximum context length is 16384 tokens. However, your messages resulted in 28491 tokens. Please reduce the length of the messages.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}.",
    overflow: true,
    tokens: { requestedTokens: 28491, limitTokens: 16384, inputTokens: 28491 },
  },
  {
    source: 'continuedev/continue#8454',
    error:
      'Error in Continue server: {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 143653 + 64000 > 200000, decrease input length or `max_tokens` and try again"},"request_id":"req_011CUWu7a8bGeMSvA9d7DRLa"}',
    overflow: true,
    tokens: { requestedTokens: 207653, limitTokens: 200000, inputTokens: 143653 },
  },
  {
    source: 'oobabooga/textgen#3658 (title; limit only)',
    error: 'openai.error.InvalidRequestError: This model maximum context length is 4096 tokens.',
    overflow: true,
  },
  {
    source: 'zebbern/Devonz#9',
    error:
      " ERROR   api.chat  AI_APICallError: This model's maximum context length is 131072 tokens. However, you requested 139162 tokens (130970 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 139162, limitTokens: 131072, inputTokens: 130970 },
  },
  {
    source: 'openai/codex#14310 (Codex client message)',
    error:
      "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.",
    overflow: true,
  },
  {
    source: 'openai/codex#29041 (Codex client message)',
    error:
      "Error running remote compact task: Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.",
    overflow: true,
  },
  {
    source: 'stackblitz/bolt.new#1345',
    error: 'prompt is too long: 205673 tokens > 200000 maximum',
    overflow: true,
    tokens: { requestedTokens: 205673, limitTokens: 200000, inputTokens: 205673 },
  },
  {
    source: 'aaif-goose/goose#7504 (Bedrock via goose (PR title))',
    error:
      'Failed to call Bedrock: ValidationException(ValidationException { message: Some("The model returned the following errors: prompt is too long: 227255 tokens > 200000 maximum")',
    overflow: true,
    tokens: { requestedTokens: 227255, limitTokens: 200000, inputTokens: 227255 },
  },
  {
    source: 'RipperTs/claude-code-relay#23',
    error:
      '❌ 错误响应内容: {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 200082 tokens > 200000 maximum"},"request_id":"req_011CSNYqawDMMLh8zPLmMmJ1"}',
    overflow: true,
    tokens: { requestedTokens: 200082, limitTokens: 200000, inputTokens: 200082 },
  },
  {
    source: 'binary-husky/gpt_academic#192 (client-side check)',
    error:
      '[Local Message] Input (or history) is too long, please reduce input or clear history by refreshing this page.',
    overflow: true,
  },
  {
    source: 'nalgeon/pokitoki#12',
    error:
      "Failed to answer. Reason: openai.error.InvalidRequestError: This model's maximum context length is 4097 tokens. However, your messages resulted in 5651 tokens. Please reduce the length of the messages.",
    overflow: true,
    tokens: { requestedTokens: 5651, limitTokens: 4097, inputTokens: 5651 },
  },
  {
    source: 'Quansight/ragna#351 (Cohere; overage only)',
    error:
      "too many tokens: size limit exceeded by 1502 tokens. Try using shorter or fewer inputs, or setting prompt_truncation='AUTO'.",
    overflow: true,
  },
  {
    source: 'chatchat-space/Langchain-Chatchat#2600 (FastChat-style worker)',
    error:
      "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum context length is 2048 tokens. However, your messages resulted in 3503 tokens. Please reduce the length of the messages.\", 'code': 40303}",
    overflow: true,
    tokens: { requestedTokens: 3503, limitTokens: 2048, inputTokens: 3503 },
  },
  {
    source: 'mckaywrigley/chatbot-ui#820',
    error:
      " [OpenAIError: This model's maximum context length is 8192 tokens. However, you requested 8554 tokens (7554 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.] {\n  name: 'OpenAIError',\n  type: 'invalid_request_error',\n  param: 'messages',\n  code: 'context_length_exceeded'\n}",
    overflow: true,
    tokens: { requestedTokens: 8554, limitTokens: 8192, inputTokens: 7554 },
  },
  {
    source: 'ikechan8370/chatgpt-plugin#219 ("4104tokens" without a space, as published)',
    error:
      '通信异常,错误信息如下Error: OpenAl error 400: { "error":{ "message": "This model\'s maximum context length is 4096 tokens. However, you requested 4104tokens (3104 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", "type": "invalid_request_error","param": "messages", "code": "context_length_exceeded" } }',
    overflow: true,
    tokens: { requestedTokens: 4104, limitTokens: 4096, inputTokens: 3104 },
  },
  {
    source: 'farion1231/cc-switch#6982 (Zhipu GLM code 1261 via a local proxy)',
    error:
      'CC Switch local proxy failed while handling Codex endpoint /responses. Provider: Zhipu GLM; model: glm-4.5-air; upstream_status: HTTP 400; cause: Prompt exceeds max length',
    overflow: true,
  },
  {
    source: 'NanmiCoder/cc-haha#860 (SiliconFlow GLM through a Claude Code fork)',
    error: 'invalid_request: Prompt is too long',
    overflow: true,
  },
  {
    source: 'egoist/chatwise-releases#917 (OpenRouter -> Bedrock, raw body nested)',
    error:
      'OpenRouter (openrouter) provider error:\n{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\\"message\\":\\"input length and `max_tokens` exceed context limit: 149674 + 64000 > 204658, decrease input length or `max_tokens` and try again\\"}","provider_name":"Amazon Bedrock"}},"user_id":"user_2uqLSwEPUxV3eobBtagk2bR7nQw"}',
    overflow: true,
    tokens: { requestedTokens: 213674, limitTokens: 204658, inputTokens: 149674 },
  },
  {
    source: 'dyad-sh/dyad#1827 (OpenRouter (comment))',
    error:
      'Sorry, there was an error from the AI: This endpoint\'s maximum context length is 163840 tokens. However, you requested about 223338 tokens (191338 of text input, 32000 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically. Details: {"error":{"message":"This endpoint\'s maximum context length is 163840 tokens. However, you requested about 223338 tokens (191338 of text input, 32000 in the output). Please reduce the length of either one, or use the \\"middle-out\\" transform to compress your prompt automatically.","code":400,"metadata":{"provider_name":null}}}',
    overflow: true,
    tokens: { requestedTokens: 223338, limitTokens: 163840, inputTokens: 191338 },
  },
  {
    source: 'oobabooga/textgen#2511 (old llama.cpp bindings)',
    error: 'llama_tokenize: too many tokens',
    overflow: true,
  },
  {
    source: 'jjang-ai/vmlx#253 (title, cut before the limit)',
    error:
      "Message failed: Error invoking remote method 'chat:sendMessage': Error: Failed to send message: Server error: prompt_too_long: tokenized VLM text prompt has 20767 tokens, max prompt/context tokens is ",
    overflow: true,
  },
  // --- a second holdout (scored before the rules were changed for it; in the table since) ---
  {
    source: 'stackblitz/bolt.new#1748',
    error: 'prompt is too long: 202128 tokens > 200000 maximum',
    overflow: true,
    tokens: { requestedTokens: 202128, limitTokens: 200000, inputTokens: 202128 },
  },
  {
    source: 'stackblitz/bolt.new#1025',
    error: 'prompt is too long: 200223 tokens > 199999 maximum',
    overflow: true,
    tokens: { requestedTokens: 200223, limitTokens: 199999, inputTokens: 200223 },
  },
  {
    source: 'Chanzhaoyu/chatgpt-web#354',
    error:
      'ChatGPT error 400: {\n\n  "error": {\n    "message": "This model\'s maximum context length is 4096 tokens. However, you requested 4130 tokens (3130 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",\n    "type": "invalid_request_error",\n    "param": "messages",\n    "code": "context_length_exceeded"\n  }\n}',
    overflow: true,
    tokens: { requestedTokens: 4130, limitTokens: 4096, inputTokens: 3130 },
  },
  {
    source: 'elotl/GenAI-infra-stack#62',
    error:
      "This model's maximum context length is 4096 tokens. However, you requested 6379 tokens (6029 in the messages, 350 in the completion). Please reduce the length of the messages or completion.\", 'type': 'BadRequestError', 'param': None, 'code': 400}",
    overflow: true,
    tokens: { requestedTokens: 6379, limitTokens: 4096, inputTokens: 6029 },
  },
  {
    source: 'google-gemini/gemini-cli#12098',
    error: 'The input token count (314175) exceeds the maximum number of tokens allowed (131072).',
    overflow: true,
    tokens: { requestedTokens: 314175, limitTokens: 131072, inputTokens: 314175 },
  },
  {
    source: 'google-gemini/gemini-cli#22609 (limit only)',
    error:
      'API Error: Failed to generate content: The input token count exceeds the maximum number of tokens allowed 1048576',
    overflow: true,
  },
  {
    source: 'rllm-team/rllm#55 (llama-cpp-python: the count is len(prompt_tokens))',
    error: 'ValueError: Requested tokens (516) exceed context window of 512',
    overflow: true,
    tokens: { requestedTokens: 516, limitTokens: 512, inputTokens: 516 },
  },
  {
    source: 'fedora-copr/logdetective#100 (llama-cpp-python: the count is len(prompt_tokens))',
    error: 'ValueError: Requested tokens (2138) exceed context window of 2048',
    overflow: true,
    tokens: { requestedTokens: 2138, limitTokens: 2048, inputTokens: 2138 },
  },
  {
    source: 'huggingface/chat-ui#1149',
    error:
      'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192. Given: 6204 `inputs` tokens and 2047 `max_new_tokens`',
    overflow: true,
    tokens: { requestedTokens: 8251, limitTokens: 8192, inputTokens: 6204 },
  },
  {
    source: 'QwenLM/Qwen-Agent#615',
    error: 'Range of input length should be [1, 30720]',
    overflow: true,
  },
  {
    source: 'infiniflow/ragflow#589',
    error: 'ERROR: Range of input length should be [1, 30000]',
    overflow: true,
  },
  {
    source: 'james-6-23/codex2api#415',
    error:
      'context_length_exceeded · invalid_request_error · Your input exceeds the context window of this model. Please adjust your input and try again.',
    overflow: true,
  },
  {
    source: 'containers/ramalama#1914',
    error:
      '{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"invalid_request_error"}',
    overflow: true,
  },
  {
    source: 'engeldlgado/toshllm#102',
    error:
      '[65373] 3.24.432.764 E srv    send_error: task id = 983, error: request (8283 tokens) exceeds the available context size (2048 tokens), try increasing it',
    overflow: true,
    tokens: { requestedTokens: 8283, limitTokens: 2048, inputTokens: 8283 },
  },
  {
    source: 'gpustack/gpustack#1359 (llama-box embedding request over context)',
    error:
      '3.49.305.569 E srv                send_error: task 1 | error = decoding exceeds the available context size. try increasing the context size.',
    overflow: true,
  },
  {
    source: 'microsoft/vscode#293191',
    error:
      'Reason: Request Failed: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210194 tokens > 200000 maximum"},"request_id":"req_011CXqSgUCevsvwLK7m3UmdA"}',
    overflow: true,
    tokens: { requestedTokens: 210194, limitTokens: 200000, inputTokens: 210194 },
  },
  {
    source: 'langgenius/dify#17778 (verbatim prefix; rest split by a screenshot in the issue)',
    error:
      "Run failed: [models] Bad Request Error, Error code: 400 - {'error': {'message': \"This model's maximum context length is 128000 tokens. However, your messages resulted in 140004 tokens. Please reduce the length of the messages. (request id: 20250410081234882004792D8t0P2P0)",
    overflow: true,
    tokens: { requestedTokens: 140004, limitTokens: 128000, inputTokens: 140004 },
  },
  {
    source: 'google-gemini/gemini-cli#11507',
    error: 'The input token count (461428) exceeds the maximum number of tokens allowed (131072)',
    overflow: true,
    tokens: { requestedTokens: 461428, limitTokens: 131072, inputTokens: 461428 },
  },
  {
    source: 'Significant-Gravitas/AutoGPT#4985 (requested equals limit (off by one))',
    error:
      "openai.error.InvalidRequestError: This model's maximum context length is 8192 tokens. However, you requested 8192 tokens (815 in the messages, 7377 in the completion). Please reduce the length of the messages or completion.",
    overflow: true,
    tokens: { requestedTokens: 8192, limitTokens: 8192, inputTokens: 815 },
  },
  {
    source: 'neulab/prompt2model#353 (limit only (issue title))',
    error: "ERROR:root:This model's maximum context length is 4097 tokens",
    overflow: true,
  },
  {
    source: 'lfnovo/open-notebook#350',
    error: 'Error: Failed to get embeddings: Ollama API error: the input length exceeds the context length',
    overflow: true,
  },
  {
    source: 'n8n-io/n8n#11144',
    error:
      '{ "error": "input length exceeds maximum context length", "status_code": 400, "name": "ResponseError", "attemptNumber": 7, "retriesLeft": 0 }',
    overflow: true,
  },
  {
    source: 'vllm-project/vllm#13370',
    error:
      'WARNING 02-16 15:37:32 scheduler.py:947] Input prompt (2501 tokens) is too long and exceeds limit of 2048',
    overflow: true,
    tokens: { requestedTokens: 2501, limitTokens: 2048, inputTokens: 2501 },
  },
  {
    source: 'vllm-project/vllm#765',
    error:
      'WARNING 08-15 11:44:47 scheduler.py:130] Input prompt (2715 tokens) is too long and exceeds limit of 2560',
    overflow: true,
    tokens: { requestedTokens: 2715, limitTokens: 2560, inputTokens: 2715 },
  },
  {
    source: 'PKU-ONELab/Themis#1',
    error: 'Input prompt (2083 tokens) is too long and exceeds limit of 2048',
    overflow: true,
    tokens: { requestedTokens: 2083, limitTokens: 2048, inputTokens: 2083 },
  },
  {
    source: 'sgl-project/sglang#8096',
    error: "ValueError: The input (85050 tokens) is longer than the model's context length (32768 tokens).",
    overflow: true,
    tokens: { requestedTokens: 85050, limitTokens: 32768, inputTokens: 85050 },
  },
  {
    source: 'Gabesarch/grounded-rl#16',
    error:
      "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'The decoder prompt (length 10127) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens. For image inputs, the number of image tokens depends on the number of images, and possibly their aspect ratios as well.', 'type': 'BadRequestError', 'param': None, 'code': 400}",
    overflow: true,
    tokens: { requestedTokens: 10127, limitTokens: 8192, inputTokens: 10127 },
  },
  {
    source: 'vllm-project/vllm#7048',
    error: 'Input prompt (9762 tokens) is too long and exceeds limit of 8192',
    overflow: true,
    tokens: { requestedTokens: 9762, limitTokens: 8192, inputTokens: 9762 },
  },
  {
    source: 'langchain-ai/langchain#11001 (issue title fragment)',
    error: "This model's maximum context length is 4097 tokens, however you requested 4226 tokens",
    overflow: true,
    tokens: { requestedTokens: 4226, limitTokens: 4097 },
  },
  {
    source: 'webstudio-is/webstudio#4268',
    error:
      "API Internal Error: 400 This model's maximum context length is 16385 tokens. However, your messages resulted in 19311 tokens. Please reduce the length of the messages.",
    overflow: true,
    tokens: { requestedTokens: 19311, limitTokens: 16385, inputTokens: 19311 },
  },
  {
    source: 'warpdotdev/warp#8017',
    error:
      'Input exceeded context window limit. The AI Agent stopped. {"conversation_id":"eda3a9f2-e5a0-4846-be96-c2c1c679a948"}',
    overflow: true,
  },
  {
    source: 'lancedb/lancedb#1535 (watsonx embedding input over model max sequence length)',
    error:
      'Status code: 400, body: {"errors":[{"code":"invalid_input_argument","message":"Invalid input argument for Model \'ibm/slate-125m-english-rtrvr\': Token sequence length is longer than the specified maximum sequence length for this model (1336 \\u003e 512).","more_info":"https://cloud.ibm.com/apidocs/watsonx-ai"}],"trace":"85527f4d559b71672661bd561a6768fe","status_code":400}',
    overflow: true,
    tokens: { requestedTokens: 1336, limitTokens: 512, inputTokens: 1336 },
  },
  {
    source:
      'FoundationAgents/MetaGPT#1372 (LlamaIndex client pre-check: prompt + num_output over context_window)',
    error: 'ValueError: Calculated available context size -271 was not non-negative.',
    overflow: true,
  },
  {
    source: 'OpenHands/OpenHands#4894',
    error:
      'litellm.BadRequestError: litellm.ContextWindowExceededError: AnthropicError - {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210543 tokens > 200000 maximum"}}',
    overflow: true,
    tokens: { requestedTokens: 210543, limitTokens: 200000, inputTokens: 210543 },
  },
  {
    source: 'marella/ctransformers#153',
    error: 'WARNING:ctransformers:Number of tokens (757) exceeded maximum context length (512).',
    overflow: true,
    tokens: { requestedTokens: 757, limitTokens: 512, inputTokens: 757 },
  },
  {
    source: 'Aider-AI/aider#645 (aider (issue title quote))',
    error: 'The chat session is larger than the context window!',
    overflow: true,
  },
  {
    source:
      'https://humanloop.com/docs/v5/api-reference/errors (provider docs example (Humanloop, origin OpenAI))',
    error:
      '{\n "type": "unprocessable_entity_error",\n "message": "This model\'s maximum context length is 4097 tokens. However, you requested 10000012 tokens (12 in the messages, 10000000 in the completion). Please reduce the length of the messages or completion.",\n "code": 422,\n "origin": "OpenAI"\n}',
    overflow: true,
    tokens: { requestedTokens: 10000012, limitTokens: 4097, inputTokens: 12 },
  },
  {
    source: 'zed-industries/zed#45134',
    error:
      'Failed to connect to DeepSeek API: 400 Bad Request {"error":{"message":"This model\'s maximum context length is 131072 tokens. However, you requested 131754 tokens (67754 in the messages, 64000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}',
    overflow: true,
    tokens: { requestedTokens: 131754, limitTokens: 131072, inputTokens: 67754 },
  },
  {
    source: 'NoFxAiOS/nofx#1278',
    error:
      '❌ Failed to get AI decision: AI API call failed: API returned error (status 400): {"error":{"message":"This model\'s maximum context length is 131072 tokens. However, you requested 141980 tokens (133980 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}',
    overflow: true,
    tokens: { requestedTokens: 141980, limitTokens: 131072, inputTokens: 133980 },
  },
  {
    source: 'https://portkey.ai/error-library/input-length-error-10153 (quoted in the page text (Anthropic))',
    error: 'prompt is too long: 103078 tokens > 102398 maximum',
    overflow: true,
    tokens: { requestedTokens: 103078, limitTokens: 102398, inputTokens: 103078 },
  },
  {
    source: 'cline/cline#5474',
    error:
      '400 Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 289650 tokens. Please reduce the length of the messages.',
    overflow: true,
    tokens: { requestedTokens: 289650, limitTokens: 272000, inputTokens: 289650 },
  },
  {
    source: 'stackblitz/bolt.new#8383',
    error:
      'input length and max_tokens exceed context limit: 101960 + 102873 > 200000, decrease input length or max_tokens and try again',
    overflow: true,
    tokens: { requestedTokens: 204833, limitTokens: 200000, inputTokens: 101960 },
  },
  {
    source: 'dyad-sh/dyad#403',
    error:
      'Sorry, there was an error from the AI: {"error":"litellm.BadRequestError: VertexAIException BadRequestError - b\'{\\n "error": {\\n "code": 400,\\n "message": "The input token count (1066750) exceeds the maximum number of tokens allowed (1048575).",\\n "status": "INVALID_ARGUMENT"\\n }\\n}\\n\'"}',
    overflow: true,
    tokens: { requestedTokens: 1066750, limitTokens: 1048575, inputTokens: 1066750 },
  },
  {
    source: 'zylon-ai/private-gpt#839',
    error:
      'ERROR: The prompt size exceeds the context window size and cannot be processed.GPT-J ERROR: The prompt is2614tokens and the context window is2048!',
    overflow: true,
  },
  {
    source: 'simonw/llm-gpt4all#36',
    error:
      'ERROR: The prompt size exceeds the context window size and cannot be processed.Exception in thread Thread-2 (run_llmodel_prompt):',
    overflow: true,
  },
  {
    source: 'google-gemini/gemini-cli#5807',
    error:
      'Attempt 2 failed with 5xx error. Retrying with backoff... ApiError: {"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 400,\\n    \\"message\\": \\"The input token count (1091639) exceeds the maximum number of tokens allowed (1048576).\\",\\n    \\"status\\": \\"INVALID_ARGUMENT\\"\\n  }\\n}\\n","code":400,"status":"Bad Request"}}',
    overflow: true,
    tokens: { requestedTokens: 1091639, limitTokens: 1048576, inputTokens: 1091639 },
  },
  {
    source: 'google-gemini/gemini-cli#12469 (terminal-wrapped as published)',
    error:
      '✕ [API Error: [{\n    "error": {\n      "code": 400,\n      "message": "The input token count (154364) exceeds the maximum number of tokens \n  allowed (131072).",\n      "errors": [\n        {\n          "message": "The input token count (154364) exceeds the maximum number of tokens \n  allowed (131072).",\n          "domain": "global",\n          "reason": "badRequest"\n        }\n      ],\n      "status": "INVALID_ARGUMENT"\n    }\n  }\n  ]]',
    overflow: true,
    tokens: { requestedTokens: 154364, limitTokens: 131072, inputTokens: 154364 },
  },
  {
    source: 'danny-avila/LibreChat#4258 (LibreChat client-side context check)',
    error:
      '[handleAbortError] AI response error; aborting request: Prompt token count of 37165 exceeds max token count of 4095.',
    overflow: true,
    tokens: { requestedTokens: 37165, limitTokens: 4095, inputTokens: 37165 },
  },
  {
    source: 'danny-avila/LibreChat#6250 (LibreChat UI message (quoted in issue))',
    error: 'Token count for the latest message is too long, exceeding the limit (4959 / 4095).',
    overflow: true,
    tokens: { requestedTokens: 4959, limitTokens: 4095, inputTokens: 4959 },
  },
  {
    source: 'danny-avila/LibreChat#934',
    error:
      'Oops! Something went wrong. Please try again in a few moments. Here\'s the specific error message we encountered: Failed to send message. HTTP 400 - { "error": { "message": "This model\'s maximum context length is 8192 tokens. However, your messages resulted in 8193 tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded" } }',
    overflow: true,
    tokens: { requestedTokens: 8193, limitTokens: 8192, inputTokens: 8193 },
  },
  {
    source: 'clusterzx/paperless-ai#52',
    error:
      "Failed to analyze document: BadRequestError: 400 This model's maximum context length is 128000 tokens. However, your messages resulted in 128649 tokens. Please reduce the length of the messages.",
    overflow: true,
    tokens: { requestedTokens: 128649, limitTokens: 128000, inputTokens: 128649 },
  },
  {
    source: 'mmz-001/knowledge_gpt#8',
    error:
      "This model's maximum context length is 4097 tokens, however you requested 5762 tokens (5506 in your prompt; 256 for the completion). Please reduce your prompt; or completion length.",
    overflow: true,
    tokens: { requestedTokens: 5762, limitTokens: 4097, inputTokens: 5506 },
  },
  {
    source: 'infiniflow/ragflow#12324',
    error:
      '16:29:14 Page(1~100000001): [ERROR]Generate embedding error:the input length exceeds the context length (status code: 500)',
    overflow: true,
  },
  {
    source: 's2b-dev/smart-second-brain#68 (LangChain map-reduce pre-check)',
    error:
      'Error: A single document was longer than the context length. Should not happen as we split documents by length in post processing!',
    overflow: true,
  },
  {
    source: 'AIDotNet/OpenDeepWiki#240',
    error:
      'System.ClientModel.ClientResultException: Request failed with status code 400: {"error":{"message":"This model\'s maximum context length is 131072 tokens. However, you requested 144400 tokens (136208 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}',
    overflow: true,
    tokens: { requestedTokens: 144400, limitTokens: 131072, inputTokens: 136208 },
  },
  {
    source: 'kwaroran/Risuai#307',
    error:
      'Error: error in request:{"error":{"message":"This model\'s maximum context length is 4096 tokens. However, you requested 4833 tokens (4433 in the messages, 400 in the completion). Please reduce the length of either one, or use the \\"middle-out\\" transform to compress your prompt automatically.","code":400}}',
    overflow: true,
    tokens: { requestedTokens: 4833, limitTokens: 4096, inputTokens: 4433 },
  },
  {
    source: 'autohandai/code-cli#100 (OpenRouter via autohand CLI; input = text + tool input)',
    error:
      "The conversation is too long for this model. Try /undo to remove recent turns or /new to start fresh.\nThis endpoint's maximum context length is 202752 tokens. However, you requested about 203889 tokens (183648 of text input, 4241 of tool input, 16000 in the output). Please reduce the length of either one, or use the context-compression plugin to compress your prompt automatically.",
    overflow: true,
    tokens: { requestedTokens: 203889, limitTokens: 202752, inputTokens: 187889 },
  },
  {
    source: 'autohandai/code-cli#118 (input = text + tool input)',
    error:
      "ApiError: The conversation is too long for this model. Try /undo to remove recent turns or /new to start fresh.\nThis endpoint's maximum context length is 262144 tokens. However, you requested about 305138 tokens (281533 of text input, 7605 of tool input, 16000 in the output). Please reduce the length of either one, or use the context-compression plugin to compress your prompt automatically.",
    overflow: true,
    tokens: { requestedTokens: 305138, limitTokens: 262144, inputTokens: 289138 },
  },
  {
    source: 'microsoft/vscode-copilot-release#7593 (Copilot Chat: prompt over the token budget)',
    error: 'Sorry, this message is too long. Please try a shorter question.',
    overflow: true,
  },
  {
    source: 'ITSpecialist111/ai_automation_suggester#42',
    error:
      'Google API error: { "error": { "code": 400, "message": "Input request contains (35490) tokens, which is more than the max tokens limit allowed: (30720)", "status": "INVALID_ARGUMENT" } }',
    overflow: true,
    tokens: { requestedTokens: 35490, limitTokens: 30720, inputTokens: 35490 },
  },
  {
    source: 'onlook-dev/onlook#1354',
    error:
      '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210266 tokens > 200000 maximum"}}',
    overflow: true,
    tokens: { requestedTokens: 210266, limitTokens: 200000, inputTokens: 210266 },
  },
  {
    source: 'chenfei-wu/TaskMatrix#26',
    error:
      "openai.error.InvalidRequestError: This model's maximum context length is 4097 tokens, however you requested 4270 tokens (4014 in your prompt; 256 for the completion). Please reduce your prompt; or completion length.",
    overflow: true,
    tokens: { requestedTokens: 4270, limitTokens: 4097, inputTokens: 4014 },
  },
];

const NEAR_MISSES: readonly Row[] = [
  // --- output caps: a max_tokens over what the model can write at all, whatever the input ---
  {
    source: 'ChatGPTNextWeb/NextChat#3195',
    error:
      '{ "error": { "message": "max_tokens is too large: 8192. This model supports at most 4096 completion tokens, whereas you provided 8192.", "type": "invalid_request_error", "param": "max_tokens", "code": null } }',
    overflow: false,
  },
  {
    source: 'diffbot/code-gpt-docs#284',
    error:
      '400 max_tokens is too large: 6000. This model supports at most 4096 completion tokens, whereas you provided 6000.',
    overflow: false,
  },
  {
    source: 'enoch3712/ExtractThinker#346',
    error:
      'litellm.BadRequestError: OpenAIException - max_tokens is too large: 32000. This model supports at most 16384 completion tokens, whereas you provided 32000.',
    overflow: false,
  },
  {
    source: 'nickscamara/open-deep-research#19 (DeepSeek)',
    error: 'Research may have failed: Invalid max_tokens value, the valid range of max_tokens is [1, 8192]',
    overflow: false,
  },
  {
    source: 'open-webui/open-webui#10507 (DashScope)',
    error: '400: <400> InternalError.Algo.InvalidParameter: Range of max_tokens should be [1, 8192]',
    overflow: false,
  },
  {
    source: 'langchain-ai/langchain#9697 (Bedrock max_tokens_to_sample)',
    error:
      'botocore.errorfactory.ValidationException: An error occurred (ValidationException) when calling the InvokeModel operation: Malformed input request: 8192 is not less or equal to 8191, please reformat your input and try again.',
    overflow: false,
  },
  {
    source: 'koosoli/ESPHomeDesigner#379',
    error:
      "Error: Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#12319 (output cut, not an input overflow)',
    error:
      "API Error: Claude's response exceeded the 32000 output token maximum. To configure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable.",
    overflow: false,
  },
  // --- rate limits and throttling, several naming tokens ---
  {
    source: 'vanna-ai/vanna-flask#11 (HTTP 429)',
    error: Object.assign(
      new Error(
        'Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 342389. The input or output tokens must be reduced in order to run successfully.',
      ),
      { status: 429 },
    ),
    overflow: false,
  },
  {
    source: 'openai/codex#38366',
    error:
      'stream disconnected before completion: Request too large for gpt-5.6-luna in organization org-b4g4X7AHZEEhfU5LlCT6H4N4 on tokens per min (TPM): Limit 200000, Requested 208334. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.',
    overflow: false,
  },
  {
    source: 'autohandai/code-cli#338 (Groq)',
    error:
      'An unexpected error occurred. Please try again. Request too large for model `openai/gpt-oss-20b` in organization `org_01kw3t4t1ke018w1a90cd42bys` service tier `on_demand` on tokens per minute (TPM): Limit 8000, Requested 34031, please reduce your message size and try again. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#236 (Bedrock)',
    error: '(429 Too many tokens, please wait before trying again.)',
    overflow: false,
  },
  {
    source: 'RooCodeInc/Roo-Code#5050 (Bedrock, AWS SDK v3 error object)',
    error: {
      message: 'Too many tokens, please wait before trying again.',
      name: 'ThrottlingException',
      $fault: 'client',
      $metadata: {
        httpStatusCode: 429,
        requestId: '158a2e26-c851-4440-9f98-e3065df1de46',
        attempts: 3,
        totalRetryDelay: 274,
      },
    },
    overflow: false,
  },
  {
    source: 'aws-samples/amazon-bedrock-client-for-mac#99',
    error:
      'Error invoking the model: ThrottlingException(properties: AWSBedrockRuntime.ThrottlingException.Properties(message: Optional("Too many tokens, please wait before trying again.")), httpResponse: Status Code: HTTP status code: 429',
    overflow: false,
  },
  {
    source: 'minorun365/agent-book#29 (Bedrock)',
    error:
      'botocore.errorfactory.ThrottlingException: An error occurred (ThrottlingException) when calling the Converse operation (reached max retries: 4): Too many tokens per day, please wait before trying again.',
    overflow: false,
  },
  {
    source: 'BerriAI/litellm#589 (Bedrock)',
    error:
      'An error occurred (throttlingException) when calling the InvokeModelWithResponseStream operation: Too many requests, please wait before trying again. You have sent too many requests.  Wait before trying again.',
    overflow: false,
  },
  {
    source: 'bhouston/mycoder#62 (Anthropic)',
    error:
      '{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (d3f27ff7-9afe-4ee2-9645-76ecfc73c2b7) of 40,000 input tokens per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."}}',
    overflow: false,
  },
  {
    source: 'FoundationAgents/OpenManus#746 (Anthropic through an OpenAI-compatible client)',
    error:
      "OpenAI API error: Error code: 429 - {'error': {'code': 'rate_limit_error', 'message': 'This request would exceed the rate limit for your organization of 20,000 input tokens per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.', 'type': 'invalid_request_error', 'param': None}}",
    overflow: false,
  },
  {
    source: 'stagewise-io/stagewise#927 (Anthropic through the AI SDK)',
    error:
      "LLM provider error: Failed after 2 attempts. Last error: This request would exceed your organization's rate limit of 30,000 input tokens per minute (org: 80162711-722b-4454-ae75-c6334e6796f2, model: claude-opus-4-6). For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://claude.com/contact-sales to discuss your options for a rate limit increase.",
    overflow: false,
  },
  // --- Google quotas (RESOURCE_EXHAUSTED), one naming input_token_count ---
  {
    source: 'google-gemini/gemini-cli#13112',
    error: {
      error: {
        code: 429,
        message:
          'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit. \n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_input_token_count, limit: 250000, model: gemini-2.5-flash\nPlease retry in 39.844676573s.',
        status: 'RESOURCE_EXHAUSTED',
      },
    },
    overflow: false,
  },
  {
    source: 'google/generative-ai-docs#236',
    error:
      '{ "error": { "code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED" } }',
    overflow: false,
  },
  {
    source: 'google/generative-ai-docs#236 (comment)',
    error:
      "Quota exceeded for quota metric 'Generate Content API requests per minute' and limit 'GenerateContent request limit per minute for a region' of service 'generativelanguage.googleapis.com' for consumer 'project_number:696498078762'.",
    overflow: false,
  },
  {
    source: 'googleapis/python-genai#2065',
    error:
      "ClientError: 429 RESOURCE_EXHAUSTED. {'error': {'code': 429, 'message': 'Resource has been exhausted (e.g. check quota).', 'status': 'RESOURCE_EXHAUSTED'}}",
    overflow: false,
  },
  {
    source: 'google-gemini/gemini-cli#8437',
    error:
      "Generate error: 429 RESOURCE_EXHAUSTED. {'error': {'code': 429, 'message': 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.', 'status': 'RESOURCE_EXHAUSTED', 'details': [{'@type': 'type.googleapis.com/google.rpc.QuotaFailure', 'violations': [{'quotaMetric': 'generativelanguage.googleapis.com/generate_content_free_tier_input_token_count', 'quotaId': 'GenerateContentInputTokensPerModelPerMinute-FreeTier'",
    overflow: false,
  },
  // --- spending limits ---
  {
    source: 'ChatGPTNextWeb/NextChat#3123',
    error:
      '{ "error": { "message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota" } }',
    overflow: false,
  },
  {
    source: 'Chanzhaoyu/chatgpt-web#1965',
    error:
      'ChatGPT error 429: { "error": { "message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota" } }',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#66314',
    error:
      'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CbrFTcXhtiMzr3s6EocF7"}',
    overflow: false,
  },
  {
    source: 'can1357/oh-my-pi#9569 (OpenRouter 402; title as published)',
    error:
      '402 This request requires more credits, or fewer max_tokens. You requested up to 65536 tokens, but can only a…',
    overflow: false,
  },
  // --- HTTP body over the byte limit (a separate isRequestTooLargeError) ---
  {
    source: 'anthropics/anthropic-sdk-python#938',
    error:
      "anthropic._exceptions.RequestTooLargeError: Error code: 413 - {'error': {'type': 'request_too_large', 'message': 'Request exceeds the maximum size'}}",
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'anthropics/claude-code#10314',
    error: 'Error: 413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'google-gemini/gemini-cli#13776',
    error:
      '[API Error: {"error":{"message":"Maximum request body size 1048576 exceeded, actual body size 1056562","code":413,"status":"Request Entity Too Large"}}]',
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'googleworkspace/dotnet-samples#23',
    error: 'Request payload size exceeds the limit: 10485760 bytes.',
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'langchain-ai/langchain-aws#419 (Bedrock InvokeModel body limit)',
    error:
      "ValidationException: An error occurred (ValidationException) when calling the InvokeModel operation: 1 validation error detected: Value at 'body' failed to satisfy constraint: Member must have length less than or equal to 25000000",
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'ggml-org/llama.cpp#4500',
    error: 'HTTP 413: Payload too large',
    overflow: false,
    tooLarge: true,
  },
  // --- more near misses, added after the patterns were written ---
  {
    source: 'anthropics/claude-code#55132',
    error:
      "API Error: Request rejected (429) · This request would exceed your organization's rate limit of 30,000 input tokens per minute (org: 9d50ef40-6cc8-4ca6-9d35-1dc9cf26235c, model: claude-sonnet-4-6). For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.",
    overflow: false,
  },
  {
    source: 'stackblitz/bolt.new#8588',
    error:
      'Failed after 3 attempts. Last error: This request would exceed the rate limit for your organization (a22cf6e6-a940-4fff-8c4c-1580816ac7be) of 1,000,000 input tokens per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.',
    overflow: false,
  },
  {
    source: 'OpenHands/OpenHands#9259',
    error:
      'litellm.RateLimitError: AnthropicException - {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (0dccdde6-f924-4f1b-bb3b-92ef846e0a5b) of 20,000 input tokens per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."}}. Attempt #3 | You can customize retry values in the configuration.',
    overflow: false,
  },
  {
    source: 'HeyPuter/puter#1977',
    error:
      '429 You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
    overflow: false,
  },
  {
    source: 'waylaidwanderer/node-chatgpt-api#167',
    error:
      'Error: {"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":null}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-quickstarts#229',
    error:
      "{'type': 'invalid_request_error', 'message': 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.'}}",
    overflow: false,
  },
  {
    source: 'neavo/KeywordGacha#111',
    error:
      "openai.BadRequestError: Error code: 400 - {'code': 400, 'reason': 'INVALID_REQUEST_BODY', 'message': 'max_tokens (current value: 4096) must be between 0 and 4000 ', 'metadata': {}}",
    overflow: false,
  },
  {
    source: 'continuedev/continue#10085 (Gemini free tier)',
    error:
      '{"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 429,\\n    \\"message\\": \\"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/rate-limit. \\\\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_input_token_count, limit: 0, model: gemini-2.5-pro\\\\nPlease retry in 38.863719904s.\\",\\n    \\"status\\": \\"RESOURCE_EXHAUSTED\\"\\n  }\\n}\\n"}}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#3335',
    error:
      'API Error: 413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
    overflow: false,
    tooLarge: true,
  },
  // --- added with the Copilot, llama.cpp, Titan and 413 families: their near misses ---
  {
    source: 'github/copilot-cli#793 (Copilot usage limit; a terminal-wrapped line joined)',
    error:
      '✗ Model call failed: {"message":"Sorry, you have exceeded your Copilot token usage. Please review our [Terms of Service](https://docs.github.com/en/site-policy/github-terms/github-terms-of-service).","code":"rate_limited"} (Request ID: F3E8:12948C:2968905:2FAE35B:694165D9)',
    overflow: false,
  },
  {
    source: 'microsoft/vscode#299446 (Copilot usage limit)',
    error:
      'Server error: Sorry, you have exceeded your Copilot token usage. Please review our Terms of Service. Error Code: rate_limited.',
    overflow: false,
  },
  {
    source: 'microsoft/vscode-copilot-release#5301 (Copilot authentication)',
    error:
      'Sorry, your request failed. Please try again. Request id: e8b0e10b-6df8-4877-ba46-6f712a091378 Reason: token expired or invalid: 401',
    overflow: false,
  },
  {
    source: 'cline/cline#12 (Anthropic authentication)',
    error:
      'API request failed: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
    overflow: false,
  },
  {
    source: 'continuedev/continue#9704 (Anthropic authentication)',
    error: '{"type":"authentication_error","message":"invalid x-api-key"}',
    overflow: false,
  },
  {
    source: 'continuedev/continue#9787 (OpenAI authentication; the key masked as published)',
    error:
      '401 Incorrect API key provided: 5hcxvSQt****************************************************************************************cgb1. You can find your API key at https://platform.openai.com/account/api-keys.',
    overflow: false,
  },
  {
    source: 'Gitlawb/openclaude#1356 (authentication)',
    error:
      '401 {"error":{"message":"API key required","type":"authentication_error","code":"api_key_required"}}',
    overflow: false,
  },
  {
    source: 'vercel/ai#2772 (Bedrock output cap)',
    error:
      'ValidationException: The maximum tokens you requested exceeds the model limit of 4096. Try again with a maximum tokens value that is lower than 4096.',
    overflow: false,
  },
  {
    source: 'aws-samples/generative-ai-use-cases#594 (Bedrock output cap, Titan Text Premier)',
    error:
      'ValidationException: The maximum tokens you requested exceeds the model limit of 3000. Try again with a maximum tokens value that is lower than 3000.',
    overflow: false,
  },
  {
    source: 'charmbracelet/crush#946 (Bedrock output cap; a terminal-wrapped line joined)',
    error:
      'POST "https://bedrock-runtime.us-west-2.amazonaws.com/v1/messages": 400 Bad Request {"message":"The maximum tokens you requested exceeds the model limit of 32768"}',
    overflow: false,
  },
  {
    source: 'https://docs.claude.com/en/api/errors (HTTP errors, the 413 entry verbatim)',
    error:
      '413 - request_too_large: Request exceeds the maximum allowed number of bytes. The maximum request size is 32 MB for standard API endpoints.',
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'Wei-Shaw/claude-relay-service#630 (nginx in front of an Anthropic relay; lines joined)',
    error:
      'API Error: 413 <html> <head><title>413 Request Entity Too Large</title></head> <body> <center><h1>413 Request Entity Too Large</h1></center> <hr><center>nginx/1.26.0 (Ubuntu)</center> </body> </html>',
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'microsoft/vscode-copilot-release#8728 (Copilot Chat)',
    error: '413 Request Entity Too Large',
    overflow: false,
    tooLarge: true,
  },
  // --- near misses added after the patterns were written ---
  {
    source: 'microsoft/vscode-copilot-release#12119 (Copilot agent mode rate limit)',
    error:
      'Sorry, you have exceeded the agent mode rate limit. Please switch to ask mode and try again later.',
    overflow: false,
  },
  {
    source: 'microsoft/vscode-copilot-release#9641 (Copilot agent mode usage limit)',
    error:
      'Sorry, you have exhausted the agent mode usage limit.  Please switch to ask mode and try again later.',
    overflow: false,
  },
  {
    source: 'aws-samples/bedrock-access-gateway#41 (Bedrock output cap)',
    error:
      '[ERROR]\t2024-08-18T22:33:13.008Z\t89da0b17-063a-493f-baf5-0adcff29ecd1\tValidation Error: An error occurred (ValidationException) when calling the ConverseStream operation: The maximum tokens you requested exceeds the model limit of 2048. Try again with a maximum tokens value that is lower than 2048.',
    overflow: false,
  },
  // --- near misses from the same servers and gateways ---
  {
    source: 'anomalyco/models.dev#4422 (output cap)',
    error:
      'max_completion_tokens is too large: 262144. This model supports at most 256000 completion tokens.',
    overflow: false,
  },
  {
    source: 'anomalyco/models.dev#5824 (AI Gateway log; output cap)',
    error: 'AiError 400 max_completion_tokens is too large: 1298829. This model supports at most 1048576',
    overflow: false,
  },
  {
    source: 'cline/cline#4971',
    error:
      '413 Request too large for model `moonshotai/kimi-k2-instruct` in organization `org_01.....` service tier `on_demand` on tokens per minute (TPM): Limit 10000, Requested 15088, please reduce your message size and try again. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#24451',
    error:
      'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 128001 > 64000, which is the maximum allowed number of output tokens for claude-opus-4-5-20251101"},"request_id":"req_011CXxg3eqF8ZMvqtkKHNjKQ"}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#11302 (LiteLLM proxy; terminal wrap kept as published)',
    error:
      'API Error: 400 {"error":{"message":"{\\"type\\":\\"error\\",\\"error\\":{\\"type\\":\\"invalid_request_error\\",\\"message\\":\\"max_tokens: 21333 > 4096, which is the maximum allowed\n    number of output tokens for claude-3-opus-20240229\\"},\\"request_id\\":\\"req_011CUwZTS7TYAH8UyTro83sP\\"}. Received Model Group=claude-haiku-4-5-20251001\nAvailable Model Group\n    Fallbacks=None","type":"None","param":"None","code":"400"}}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#7869 (output cut; not an input overflow)',
    error:
      "API Error: Claude's response exceeded the 32000 output token maximum. To configure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable.",
    overflow: false,
  },
  {
    source: 'OpenDataBox/CrackSQL#27 (embeddings batch cap, not a context window: split the batch)',
    error:
      "Error code: 400 - {'error': {'message': 'Requested 453357 tokens, max 300000 tokens per request', 'type': 'max_tokens_per_request', 'param': None, 'code': 'max_tokens_per_request'}}",
    overflow: false,
  },
  {
    source: 'databricks/databricks-sdk-go#1183 (output cap)',
    error:
      'Bad request: rpc error: code = InvalidArgument desc = max_tokens (10000) cannot exceed 8192. Please reduce the length of max output tokens generated.',
    overflow: false,
  },
  {
    source: 'ITSpecialist111/ai_automation_suggester#61',
    error:
      'Groq API error: {"error":{"message":"Request too large for model `llama-3.3-70b-versatile` in organization `org_01jp8byqwpfx9sp1m0dbhb6a1e` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 14810, please reduce your message size and try again. Visit https://console.groq.com/docs/rate-limits for more information.","type":"tokens","code":"rate_limit_exceeded"}}',
    overflow: false,
  },
  {
    source: 'MoonshotAI/Kimi-K2#5 (comment)',
    error:
      "openai.PermissionDeniedError: Error code: 403 - {'error': {'message': 'Your account org-...<ak-...> is not active, organization <org-...> exceeded current quota, please check your plan and billing details', 'type': 'exceeded_current_quota_error'}}",
    overflow: false,
  },
  {
    source:
      "QwenLM/qwen-code#1082 (gateway JSON parser byte/char cap: a body-size error by the library's definition)",
    error:
      '[API Error: 400 String value length (20054016) exceeds the maximum allowed (20000000, from `StreamReadConstraints.getMaxStringLength()`)]',
    overflow: false,
  },
  {
    source: 'VectorlyApp/bluebox#31 (character cap per string; no token wording)',
    error:
      "openai.BadRequestError: Error code: 400 - {'error': {'message': \"Invalid 'input[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 62114761 instead.\", 'type': 'invalid_request_error', 'param': 'input[0].content', 'code': 'string_above_max_length'}}",
    overflow: false,
  },
  {
    source: 'gptscript-ai/clio#41',
    error:
      "error, status code: 400, message: Invalid 'messages[17].content': string too long. Expected a string with maximum length 1048576, but got a string with length 1744259 instead.",
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#11181 (per-image byte cap)',
    error:
      'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.44.content.1.image.source.base64: image exceeds 5 MB maximum: 11641928 bytes > 5242880 bytes"},"request_id":"req_011CUtc4QmYXvDmHZ4aqQP5i"}',
    overflow: false,
  },
  {
    source: 'cg-dot/vertexai-cf-workers#16',
    error:
      'Route: [anthropic] ProviderBizError:  [Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 6418576 bytes > 5242880 bytes"}}]',
    overflow: false,
  },
  {
    source: 'warpdotdev/warp#8114 (page cap)',
    error:
      'Anthropic API error: POST "https://api.anthropic.com/v1/messages": 400 Bad Request (Request-ID: req_011CVKWY6Ue1FZoyBfkgAqyc) {"type":"error","error":{"type":"invalid_request_error","message":"messages.4.content.0.pdf.source.base64.data: A maximum of 100 PDF pages may be provided."},"request_id":"req_011CVKWY6Ue1FZoyBfkgAqyc"}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#6197 (client-side tool-output cap, not the model window)',
    error:
      'MaxFileReadTokenExceededError: File content (45923 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content.',
    overflow: false,
  },
  {
    source: 'RooCodeInc/Roo-Code#5729 (output cap that names context_window)',
    error:
      '400 max_tokens must be less than or equal to 16384, the maximum value for max_tokens is less than the context_window for this model',
    overflow: false,
  },
  {
    source: 'continuedev/continue#10602',
    error:
      '429 Request too large for gpt-4o in organization org-vyUrKHsIdLcZGKR3zqCqllrS on tokens per min (TPM): Limit 30000, Requested 61337. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.',
    overflow: false,
  },
  {
    source: 'Aider-AI/aider#1880 (terminal wrap joined)',
    error:
      "litellm.RateLimitError: RateLimitError: OpenAIException - Error code: 429 - {'error': {'message': 'Request too large for gpt-4o in organization org-2itOgSdqw0DhUYp0QyLhttLL on tokens per min (TPM): Limit 30000, Requested 36278. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}",
    overflow: false,
  },
  {
    source: 'alex-wolf-ps/dbchatprov2#2',
    error:
      'HTTP 429 (429) Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-05-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 86400 seconds. Please go here:\nhttps://aka.ms/oai/quotaincrease\nif you would like to further increase the default rate limit.',
    overflow: false,
  },
  {
    source: 'pollinations/pollinations#6260 (peak-load throttling worded as a size)',
    error:
      '{"success":false,"error":{"message":"azure-openai error: The system is currently experiencing high demand and cannot process your request. Your request exceeds the maximum usage size allowed during peak load. Please retry after 20 seconds. For improved latency reliability, consider switching to Provisioned Throughput.","code":"RATE_LIMITED","timestamp":"2025-12-21T01:27:42.111Z"},"status":429}',
    overflow: false,
  },
  {
    source: 'sozercan/kubectl-ai#12 (Go timeout; a naive "context … exceeded" rule would fire)',
    error:
      'Post "https://api.openai.com/v1/engines/davinci/completions": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
    overflow: false,
  },
  // --- near misses of the same holdout ---
  {
    source: 'FoundationAgents/MetaGPT#523',
    error:
      'openai.error.RateLimitError: Rate limit reached for gpt-4 in organization org-uVqpjtJiKqvVJMVfvpaounIh on tokens per min (TPM): Limit 10000, Used 8554, Requested 3082. Please try again in 9.816s. Visit https://platform.openai.com/account/rate-limits to learn more.',
    overflow: false,
  },
  {
    source: 'TheR1D/shell_gpt#653',
    error:
      "RateLimitError: Error code: 429 - \n{'error': \n{'message': 'Request too large for gpt-4o in organization org-78asdf87asdf9aaa8976 on tokens per min (TPM): \nLimit 30000, Requested 31538. \nThe input or output tokens must be reduced in order to run successfully. \nVisit https://platform.openai.com/account/rate-limits to learn more.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}",
    overflow: false,
  },
  {
    source: 'BuilderIO/micro-agent#86',
    error:
      '429 Rate limit reached for gpt-4o in organization org-uOtiSEwvUnroadaOnJJquBEC on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms.',
    overflow: false,
  },
  {
    source: 'agent0ai/agent-zero#711',
    error:
      'litellm.exceptions.RateLimitError: litellm.RateLimitError: RateLimitError: OpenAIException - Request too large for gpt-5 in organization org-123456 on tokens per min (TPM): Limit 30000, Requested 36055. The input or output tokens must be reduced in order to run successfully.',
    overflow: false,
  },
  {
    source: 'meta-llama/llama-models#354',
    error:
      "API Error (Llama-3.3-8B-Instruct): Error code: 429 - {'title': 'Too Many Requests', 'detail': 'You have exceeded the maximum number of tokens allowed within a given time frame. Wait a bit and try again.', 'status': 429}",
    overflow: false,
  },
  {
    source: 'semanser/codel#72',
    error:
      '2024/12/25 00:40:02 Failed to get response from model API returned unexpected status code: 429: Rate limit reached for gpt-4o in organization XXXXXXXXX on tokens per min (TPM): Limit 30000, Used 14567, Requested 24754. Please try again in 18.642s. Visit https://platform.openai.com/account/rate-limits to learn more.',
    overflow: false,
  },
  {
    source: 'DrShushen/climb#13',
    error:
      "RateLimitError: Error code: 429 - {'error': {'message': 'Request too large for gpt-4o in organization org-VDAWofJASuLH0vVz8o9tiQZr on tokens per min (TPM): Limit 30000, Requested 30601. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}",
    overflow: false,
  },
  {
    source: 'Vizards/deepseek-v4-for-copilot#279',
    error:
      'status_code=429, TPM (Tokens Per Minute) limit of the model deepseek-v4-1-flash is exceeded. Please try again later',
    overflow: false,
  },
  {
    source: 'langgenius/dify#35485',
    error:
      'req id: 9c9c57be01 PlugininvokeError: "args\':0,"error type":"ValueError,"message":"(message\':context deadline exceeded\',\'type\':\'server_error\'"',
    overflow: false,
  },
  {
    source: 'prehisle/relay-pulse#15',
    error:
      'relaypulse-monitor  | 2025/11/26 19:31:19 [Probe] ERROR 88code-cc-standard-channel: Post "https://www.88code.org/api/v1/messages": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
    overflow: false,
  },
  {
    source: 'kaitranntt/ccs#279',
    error: 'context deadline exceeded (Client.Timeout or context cancellation while reading body)',
    overflow: false,
  },
  {
    source: 'AtomicBot-ai/Atomic-Chat#212',
    error: 'timeout: llama-server completion exceeded the 180-second deadline',
    overflow: false,
  },
  {
    source: 'zurawiki/gptcommit#84',
    error:
      'Error: insufficient_quota: You exceeded your current quota, please check your plan and billing details.',
    overflow: false,
  },
  {
    source: 'autogluon/autogluon-rag#50 (Bedrock Cohere embed per-text char cap)',
    error:
      'botocore.errorfactory.ValidationException: An error occurred (ValidationException) when calling the InvokeModel operation: Malformed input request: #/texts/1: expected maxLength: 2048, actual: 2449#/texts/2: expected maxLength: 2048, actual: 2227#/texts/4: expected maxLength: 2048, actual: 3072#/texts/11: expected maxLength: 2048, actual: 2777#/texts/12: expected maxLength: 2048, actual: 2949#/texts/15: expected maxLength: 2048, actual: 2053#/texts/17: expected maxLength: 2048, actual: 2769#/texts/18: expected maxLength: 2048, actual: 2399#/texts/19: expected maxLength: 2048, actual: 2403, please reformat your input and try again.',
    overflow: false,
  },
  {
    source: 'open-webui/open-webui#26457 (config warning, not a rejected request)',
    error:
      'Jun 29 00:03:19 trixie ollama[3307952]: time=2026-06-29T00:03:19.987Z level=WARN source=server.go:114 msg="requested context size too large for model" num_ctx=8192 n_ctx_train=2048',
    overflow: false,
  },
  {
    source: 'langchain-ai/chat-langchain#109',
    error: 'ERROR:root:maximum recursion depth exceeded',
    overflow: false,
  },
  {
    source: 'run-llama/llama_index#7995',
    error: 'RecursionError: maximum recursion depth exceeded while calling a Python object',
    overflow: false,
  },
  {
    source: 'hinthornw/trustcall#13',
    error:
      "GraphRecursionError('Recursion limit of 25 reached without hitting a stop condition. You can increase the limit by setting the `recursion_limit` config key.\\nFor troubleshooting, visit: https://python.langchain.com/docs/troubleshooting/errors/GRAPH_RECURSION_LIMIT')",
    overflow: false,
  },
  {
    source: 'thelounge/thelounge#5022',
    error:
      '2026-01-31 21:15:22 [ERROR] Failed to load messages for marmis: RangeError: Maximum call stack size exceeded',
    overflow: false,
  },
  {
    source: 'Upsonic/Upsonic#176',
    error:
      "{'error': {'message': \"Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 133 instead.\", 'type': 'invalid_request_error',",
    overflow: false,
  },
  {
    source: 'vishalmysore/Tools4AI#16',
    error:
      'dev.ai4j.openai4j.OpenAiHttpException: {\n  "error": {\n    "message": "Invalid \'tools\': array too long. Expected an array with maximum length 128, but got an array with length 325 instead.",\n    "type": "invalid_request_error",\n    "param": "tools",\n    "code": "array_above_max_length"\n  }\n}',
    overflow: false,
  },
  {
    source: 'zed-industries/zed#42393',
    error:
      'Failed to connect to API: 400 Bad Request {"error":{"message":"Invalid \'tools\': array too long. Expected an array with maximum length 128, but got an array with length 133 instead.","code":"invalid_request_body"}}',
    overflow: false,
  },
  {
    source: 'julep-ai/julep#330',
    error:
      "litellm.exceptions.BadRequestError: OpenAIException - Error code: 400 - {'error': {'message': \"Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 383 instead.\", 'type': 'invalid_request_error', 'param': 'tools', 'code': 'array_above_max_length'}}",
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#10612 (per-image byte cap)',
    error:
      'API Error: 400\n    {"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.2.image.source.base64:\n    image exceeds 5 MB maximum: 15908784 bytes > 5242880 bytes"},"request_id":"req_011CUcqvXBc6AskCDuW4mM1q"}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#19631 (per-image byte cap)',
    error:
      'API Error: 400 \n     {"type":"error","error":{"type":"invalid_request_error","message":"messages.2.content.0.image.source.base64: image \n     exceeds 5 MB maximum: 8259148 bytes > 5242880 bytes"},"request_id":"req_011CXKmJsXLyKCAJCQBNzbJZ"}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#4778 (image pixel cap)',
    error:
      'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.\n    7.content.2.image.source.base64.data: At least one of the image dimensions exceed max \n    allowed size: 8000 pixels"}}',
    overflow: false,
  },
  {
    source: 'n4ze3m/page-assist#371 (DashScope embedding batch cap)',
    error:
      '{\n  "error": {\n    "code": "InvalidParameter",\n    "param": null,\n    "message": "<400> InternalError.Algo.InvalidParameter: Value error, batch size is invalid, it should not be larger than 20.: input.contents",\n    "type": "InvalidParameter"\n  },\n  "id": "40c27542-e5b2-9acd-b363-0efbf087bab7",\n  "request_id": "40c27542-e5b2-9acd-b363-0efbf087bab7"\n}',
    overflow: false,
  },
  {
    source: 'n4ze3m/page-assist#371#comment (SiliconFlow embedding batch cap (comment))',
    error: 'input batch size 473 > maximum allowed batch size 64',
    overflow: false,
  },
  {
    source: 'jjyaoao/HelloAgents#27 (DashScope embedding batch cap)',
    error:
      '[WARNING] Batch 0 encoding failed: Embedding REST 调用失败: 400 {"error":{"message":"<400> InternalError.Algo.InvalidParameter: Value error, batch size is invalid, it should not be larger than 10.: input.contents","type":"InvalidParameter","param":null,"code":"InvalidParameter"},"id":"318cff27-38bd-4289-8f70-18d8d37bded9","request_id":"318cff27-38bd-4289-8f70-18d8d37bded9"}',
    overflow: false,
  },
  {
    source: '1Panel-dev/MaxKB#305 (DB column cap while saving LLM summary)',
    error: '异常value too long for type character varying(256)',
    overflow: false,
  },
  {
    source: 'malgamves/strapi-open-ai-text-generation#9 (DB column cap on generated text)',
    error: 'value too long for type character varying(255)',
    overflow: false,
  },
  {
    source: 'OpenHands/OpenHands#11090 (output cap (title))',
    error:
      'AnthropicError: max_tokens: 1000000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-20250514',
    overflow: false,
  },
  {
    source: 'chathub-dev/chathub#1222 (output cap)',
    error:
      '400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 32000 > 4096, which is the maximum allowed number of output tokens for claude-3-opus-20240229"}}',
    overflow: false,
  },
  {
    source: 'ChatGPTNextWeb/NextChat#4964 (output cap)',
    error:
      '{\n  "type": "error",\n  "error": {\n    "type": "invalid_request_error",\n    "message": "max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20240620"\n  }\n}',
    overflow: false,
  },
  {
    source: 'Natively-AI-assistant/natively-cluely-ai-assistant#54 (output cap, terminal-wrapped)',
    error:
      '[Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 65536 > 64000, which is the \nmaximum allowed number of output tokens for claude-sonnet-4-5-20250929"},"request_id":"req_redactedredacted"}]',
    overflow: false,
  },
  {
    source: 'ollama/ollama#12291 (context canceled)',
    error:
      'Sep 15 11:33:12 myserv ollama[421938]: time=2025-09-15T11:33:12.724+02:00 level=ERROR source=server.go:1458 msg="post predict" error="Post \\"http://127.0.0.1:40933/completion\\": context canceled"',
    overflow: false,
  },
  {
    source: 'router-for-me/CLIProxyAPI#4487 (context canceled)',
    error: '{"error":{"message":"context canceled","type":"server_error","code":"internal_server_error"}}',
    overflow: false,
  },
  {
    source: 'icereed/paperless-gpt#454 (title)',
    error: 'Ollama: error getting response from LLM: context canceled',
    overflow: false,
  },
  {
    source: 'volcengine/OpenViking#5079',
    error: 'failed to do request: HTTP request failed: Post "...": context canceled',
    overflow: false,
  },
  {
    source: 'googleapis/js-genai#882 (schema depth cap)',
    error: 'A schema in GenerationConfig in the request exceeds the maximum allowed nesting depth.',
    overflow: false,
  },
  {
    source: 'anomalyco/opencode#25495 (schema depth cap)',
    error:
      'Invalid request: tools.function.parameters is not a valid moonshot flavored json schema, details: schema depth exceeds maximum limit of 10',
    overflow: false,
  },
  {
    source: 'Avick3110/houseCARL#730 (schema depth cap)',
    error:
      'Error from provider (Console Go): Upstream request failed: [invalid_request_error] JSON schema exceeds the maximum nesting depth of 10 levels',
    overflow: false,
  },
  {
    source: 'tidyverse/ellmer#671 (schema depth cap)',
    error:
      "ℹ : Invalid schema for response_format 'structured_data': 6 levels of nesting exceeds limit of 5.",
    overflow: false,
  },
  {
    source: 'StanGirard/speechdigest#1 (body-size cap (title))',
    error: 'APIError: Maximum content size limit (26214400) exceeded (26306794 bytes read)',
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'microsoft/vscode#306919 (image-count cap)',
    error: 'Too many images in request: 11 images provided, but the model supports a maximum of 10 images.',
    overflow: false,
  },
  {
    source: 'anomalyco/opencode#47721 (image-count cap)',
    error:
      'Error from provider (Console): Upstream request failed: [invalid_request_error] request contains 52 images, exceeding the maximum of 50 allowed per request',
    overflow: false,
  },
  {
    source: 'vllm-project/vllm#17092 (image-count cap (title))',
    error:
      "{'object': 'error', 'message': 'At most 5 image(s) may be provided in one request.', 'type': 'BadRequestError', 'param': None, 'code': 400}",
    overflow: false,
  },
  {
    source: 'the-open-agent/openagent#874 (image-count cap)',
    error: 'error, status code: 400, message: Too many images in request. Max is 10.',
    overflow: false,
  },
  {
    source: 'QuantumNous/new-api#1233 (image-count cap)',
    error: '500 too many images in the message, max allowed is 16',
    overflow: false,
  },
  {
    source: 'jasonacox/TinyLLM#17 (Azure token rate limit)',
    error:
      "INFO:server:ERROR: Error code: 429 - {'error': {'message': \"litellm.RateLimitError: AzureException RateLimitError - Error code: 429 - {'error': {'code': '429', 'message': 'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2023-05-15 have exceeded token rate limit of your current AIServices S0 pricing tier. Please retry after 86400 seconds. Please contact Azure support service if you would like to further increase the default rate limit.'}}\\nReceived Model Group=azure-gpt-4o-mini\\nAvailable Model Group Fallbacks=None\", 'type': 'throttling_error', 'param': None, 'code': '429'}}",
    overflow: false,
  },
  {
    source: 'dyad-sh/dyad#1849 (Azure token rate limit (maintainer comment, cut at the excerpt end))',
    error:
      'Stream error: 429 litellm.RateLimitError: AzureException RateLimitError - Your requests to gpt-5.1 for gpt-5.1 in East US 2 have exceeded the token rate limit for your current AIServices S0 pricing tier. This request was for ChatCompletions_Create under Azure OpenAI API version 2025-03-01-preview. Please retry after 60 seconds. To increase your default rate limit, visit: https://aka.ms/oai/quotaincrease.',
    overflow: false,
  },
  {
    source: 'microsoft/sample-app-aoai-chatGPT#406 (Azure token rate limit)',
    error:
      'Requests to the Creates a completion for the chat message Operation under Azure OpenAI API version 2023-03-15-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 9 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.',
    overflow: false,
  },
  {
    source: 'AnswerDotAI/fastllm#45 (string-length cap on one field)',
    error:
      "fastspec.errors.APIError: APIError(message=\"Invalid 'input[95].call_id': string too long. Expected a string with maximum length 64, but got a string with length 116 instead.\", endpoint='POST /backend-api/codex/responses', status_code=400, error_type='invalid_request_error', code='string_above_max_length')",
    overflow: false,
  },
  {
    source: 'google-gemini/gemini-cli#22328 (title)',
    error: 'Reason: RangeError: Maximum call stack size exceeded',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#39757 (overloaded)',
    error:
      'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded.\n     https://docs.claude.com/en/api/errors"},"request_id":"req_011CZTGFbArQvnRwr6evz8ca"}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#5184 (overloaded)',
    error:
      'API Error (529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}) · Retrying in 1 seconds… (attempt 1/10)',
    overflow: false,
  },
  {
    source: 'FoundationAgents/OpenManus#511 (timeout)',
    error: '2025-03-12 13:41:58.608 | ERROR    | app.llm:ask_tool:260 - API error: Request timed out.',
    overflow: false,
  },
  {
    source: 'langchain-ai/langchain#21919 (timeout (title))',
    error: 'openai.APITimeoutError: Request timed out.',
    overflow: false,
  },
  {
    source: 'ethz-spylab/satml-llm-ctf#49 (timeout)',
    error:
      "{'detail': ['OpenAI API error: A timeout error occurred. The function call took longer than 60 second(s).. If you have a team budget,note that your team budget has NOT been consumed.']}",
    overflow: false,
  },
  {
    source: 'badlogic/lemmy#40 (PDF page cap)',
    error:
      'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"A maximum of 100 PDF pages may be \n     provided."},"request_id":"req_011CSH8n4eR7E2EaNM3T8wNb"}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#6231 (PDF page cap)',
    error:
      'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.38.content.0.pdf.source.base64.data: A maximum of 100 PDF pages may be \n     provided."},"request_id":"req_011CSLJCsyisXTqRiCuhX51C"}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#30654 (image/document count cap)',
    error: 'too many images and documents: 105 + 0 > 100',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#15054 (PDF size cap (client))',
    error: 'PDF too large. Please double press esc to edit your message and try again.',
    overflow: false,
  },
  {
    source: 'anthropics/claude-quickstarts#422 (claude.ai image-count cap)',
    error:
      'Your message will exceed the [maximum image count](https://support.claude.com/en/articles/11647753-understanding-usage-and-length-limits) for this chat. Try uploading 4 documents with fewer pages, removing images, or starting a new conversation.',
    overflow: false,
  },
  // --- near misses of the second holdout ---
  {
    source: 'soto-project/soto#471',
    error:
      'ValidationError: Length of ExecuteStatementRequest.resourceArn (101) is greater than the maximum allowed value 100.',
    overflow: false,
  },
  {
    source: 'modrinth/labrinth#452',
    error: 'Error while validating input: Field bio failed validation with error length',
    overflow: false,
  },
  {
    source: 'boto/boto3#1060',
    error:
      'botocore.exceptions.ParamValidationError: Parameter validation failed:\nInvalid length for parameter StreamArn, value: 6, valid range: 37-inf\nInvalid length for parameter ShardId, value: 3, valid range: 28-inf',
    overflow: false,
  },
  {
    source: 'daveshap/Medical_Intake#9',
    error:
      'Error communicating with OpenAI: "Rate limit reached for 10KTPM-200RPM in organization org-gvAzf6Q9pR7y2UAiI9owd3LF on tokens per min. Limit: 10000 / min. Please try again in 6ms. Contact us through our help center at help.openai.com if you continue to have issues."',
    overflow: false,
  },
  {
    source: 'AQBot-Desktop/AQBot#93',
    error:
      'Provider error: OpenAI API error 400 Bad Request: {"error":{"message":"Param Incorrect","type":"upstream_error","param":"max_tokens is too large: 1048576. This model supports at most 131072 completion tokens, whereas you provided 1048576.","code":"400"}}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#55147',
    error:
      "API Error: Claude's response exceeded the 8000 output token maximum. To configure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable.",
    overflow: false,
  },
  {
    source: 'xintaofei/codeg#152',
    error:
      'ACP protocol error: Internal error: API Error: Claude\'s response exceeded the 32000 output token maximum. To configure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable.: {\n  "errorKind": "max_output_tokens"\n}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#6158 (tool-output cap in tokens, not the model window)',
    error:
      'MCPContentTooLargeError: MCP tool "search_for_pattern" response (36382 tokens) exceeds maximum allowed tokens (25000). Please use pagination, filtering, or limit parameters to reduce the response size.',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#19216',
    error:
      'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens:\n     100001 > 64000, which is the maximum allowed number of output tokens for                    \n    claude-sonnet-4-5-20250929"},"request_id":"req_011CXGbyuovVsxoyrwv35JtD"}',
    overflow: false,
  },
  {
    source: 'BigBrotherTeam/BigBrother#115 (issue title)',
    error: 'The received stringth length is longer than maximum allowed (29>16)',
    overflow: false,
  },
  {
    source: 'macropeople/sasjs#30',
    error: 'The max length of a string value in SASjs is 32765 characters.',
    overflow: false,
  },
  {
    source: 'gptme/gptme#185',
    error:
      "BadRequestError: Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'messages.58.content.2.image.source.base64: image exceeds 5 MB maximum: 6500712 bytes > 5242880 bytes'}}",
    overflow: false,
  },
  {
    source: 'bytedance/deer-flow#1849',
    error:
      'Error: Recursion limit of 50 reached without hitting a stop condition. You can increase the limit by setting the\n`recursion_limit` config key. For troubleshooting, visit:\nhttps://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT',
    overflow: false,
  },
  {
    source: 'langchain-ai/langgraph#148',
    error:
      'langgraph.pregel.GraphRecursionError: Recursion limit of 25 reachedwithout hitting a stop condition. You can increase the limitby setting the `recursion_limit` config key.',
    overflow: false,
  },
  {
    source: 'archi-physics/archi#457',
    error:
      'Recursion limit hit during stream for CMSCompOpsAgent (limit=3): Recursion limit of 3 reached without hitting a stop condition. You can increase the limit by setting the `recursion_limit` config key.',
    overflow: false,
  },
  {
    source: 'keinsaasforever/better-chatbot#197',
    error:
      "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 217 instead.",
    overflow: false,
  },
  {
    source: 'zed-industries/zed#32946',
    error:
      "Failed to connect to OpenAI API: Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 158 instead.",
    overflow: false,
  },
  {
    source: 'sigoden/aichat#825 (embedding batch cap)',
    error:
      'Invalid response data: {"detail":"Request to model \'voyage-large-2-instruct\' failed. The max allowed tokens per submitted batch is 120000. Your batch has 121138 tokens after truncation. Please lower the number of tokens in the batch."} (status: 400)',
    overflow: false,
  },
  {
    source: 'kenn-io/agentsview#1356 (embedding batch cap)',
    error:
      'status 400: The max allowed tokens per submitted batch is 120000.\nYour batch has 147910 tokens after truncation.  TOO_MANY_TOKENS_IN_BATCH',
    overflow: false,
  },
  {
    source: 'aurelio-labs/semantic-router#297 (mistral-embed batch cap)',
    error:
      'MistralAPIException: Status: 400. Message: {"object":"error","message":"Too many tokens in batch. Max is 16384 got 17555","type":"invalid_request_error","param":null,"code":null}',
    overflow: false,
  },
  {
    source: 'langchain-ai/langchain#33668 (OpenAI embeddings per-request cap)',
    error:
      "openai.BadRequestError: Error code: 400 - {'error': {'message': 'Requested 673477 tokens, max 300000 tokens per request'}}",
    overflow: false,
  },
  {
    source: 'xorbitsai/inference#1715 (server start-up configuration error)',
    error:
      "ValueError: [address=127.0.0.1:37657, pid=3125985] User-specified max_model_len (4096) is greater than the derived max_model_len (seq_length=2048 or model_max_length=None in model's config.json). This may lead to incorrect model outputs or CUDA errors. Make sure the value is correct and within the model context size.",
    overflow: false,
  },
  {
    source: 'BatsResearch/bonito#7 (engine start-up configuration error)',
    error:
      "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (16816). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    overflow: false,
  },
  {
    source: 'vllm-project/vllm#10517 (engine start-up configuration error)',
    error:
      "The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV cache (23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    overflow: false,
  },
  {
    source: 'VernissageApp/VernissageServer#314',
    error: '2025-04-26 15:43:50.753 UTC [7646] ERROR:  value too long for type character varying(10)',
    overflow: false,
  },
  {
    source: 'baserow/baserow#3099',
    error: 'StringDataRightTruncation: value too long for type character varying(200)',
    overflow: false,
  },
  {
    source: 'ChatGPTNextWeb/NextChat#4101',
    error:
      '{\n  "error": {\n    "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",\n    "type": "insufficient_quota",\n    "param": null,\n    "code": "insufficient_quota"\n  }\n}',
    overflow: false,
  },
  {
    source: 'anthropics/claude-code#16136',
    error:
      'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"A maximum of 100 PDF pages may be provided."},"request_id":"req_011CWk3japSK5WFb8gJwr2yG"}',
    overflow: false,
  },
  {
    source: 'BerriAI/litellm#3279',
    error:
      '{\n  "error": {\n    "message": "APITimeoutError - Request timed out. \\n model: azure/chatgpt-v-2 \\n api_base: https://openai-gpt-4-test-v-1.openai.azure.com/ \\n error_str: Request timed out.",\n    "type": null,\n    "param": null,\n    "code": 408\n  }\n}',
    overflow: false,
  },
  {
    source: 'RUC-NLPIR/Arbor#1',
    error:
      'litellm.Timeout: APITimeoutError - Request timed out. Error_str: Request timed out. - timeout value=20.0, time taken=20.26 seconds',
    overflow: false,
  },
  {
    source: 'ading2210/vercel-llm-api#14',
    error:
      "Failed to perform, ErrCode: 28, Reason: 'Operation timed out after 30012 milliseconds with 3977 bytes received'",
    overflow: false,
  },
  {
    source: 'souther-lang/souther#262',
    error:
      '--input is not valid JSON: Document nesting depth (501) exceeds the maximum allowed (500, from `StreamReadConstraints.getMaxNestingDepth()`)',
    overflow: false,
  },
  {
    source: 'codehaus/jettison#12',
    error: 'Caused by: org.codehaus.jettison.json.JSONException: Nesting too deep.',
    overflow: false,
  },
  {
    source: 'huhusmang/ChatGPT-Exporter#27 (exporting a conversation at its length limit)',
    error: '导出过程中发生严重错误: RangeError: Maximum call stack size exceeded',
    overflow: false,
  },
  {
    source: 'cloudflare/agents#430',
    error: '✘ [ERROR] RPC error: RangeError: Maximum call stack size exceeded',
    overflow: false,
  },
  {
    source: 'kortix-ai/suna#1766 (verbatim as published (cut off in the issue))',
    error:
      'Rate limit exceeded: Too many requests to the API. Please retry later. litellm.RateLimitError: AnthropicException - b\'{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (xxxxxxxx) of 30,000 input tokens per minute.',
    overflow: false,
  },
  {
    source: 'logancyang/obsidian-copilot#2327',
    error:
      '429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your organization\'s rate limit of 30,000 input tokens per minute (org: 5456025a-920d-4fae-83df-eb142ce029c1, model: claude-sonnet-4-20250514). For details, refer to: faviconhttps://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at faviconhttps://claude.com/contact-sales to discuss your options for a rate limit increase."},"request_id":"req_011CZRtHe9vmeRRMu6G4rMhJ"}',
    overflow: false,
  },
  {
    source: 'google-gemini/gemini-cli#14831',
    error:
      '✕ [API Error: [{\n    "error": {\n      "code": 429,\n      "message": "Resource exhausted. Please try again later. Please refer to\n  https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.",\n      "errors": [\n        {\n          "message": "Resource exhausted. Please try again later. Please refer to\n  https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.",\n          "domain": "global",\n          "reason": "rateLimitExceeded"\n        }\n      ],\n      "status": "RESOURCE_EXHAUSTED"\n    }\n  }\n  ]]',
    overflow: false,
  },
  {
    source: 'continuedev/continue#10560',
    error:
      '{"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 429,\\n    \\"message\\": \\"Resource has been exhausted (e.g. check quota).\\",\\n    \\"status\\": \\"RESOURCE_EXHAUSTED\\"\\n  }\\n}\\n","code":429,"status":"Too Many Requests"}}',
    overflow: false,
  },
  {
    source: 'anomalyco/opencode#1000',
    error: 'AI_APICallError: `max_tokens` must be less than or equal to `16384`',
    overflow: false,
  },
  {
    source: 'skapadia3214/groq-moa#8',
    error:
      "BadRequestError: Error code: 400 - {'error': {'message': 'max_tokens for `llama-3.1-8b-instant` must be less than or equal to 8000', 'type': 'invalid_request_error'}}",
    overflow: false,
  },
  {
    source: 'stackblitz-labs/bolt.diy#564 (body-size 413)',
    error: 'APICallError [AI_APICallError]: Request Entity Too Large',
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'openai/codex#2255 (in-stream; HTTP status not shown, default 400 used)',
    error:
      '🖐 stream disconnected before completion: Rate limit reached for gpt-5 in organization org-4186rp37ux4fzmyzgp01lbvp on tokens per min (TPM): Limit 40000000, Used 40000000, Requested 13621. Please try again in 20ms. Visit https://platform.openai.com/account/rate-limits to learn more.',
    overflow: false,
  },
  {
    source:
      'EleutherAI/lm-evaluation-harness#1513 (HF generate() max_length (generation setting, far below model window); debatable)',
    error:
      'ValueError: Input length of input_ids is 494, but max_length is set to 128. This can lead to unexpected behavior. You should consider increasing max_length or, better yet, setting max_new_tokens.',
    overflow: false,
  },
  {
    source: 'huggingface/smol-course#208 (HF generate() default max_length=20; debatable)',
    error:
      'ValueError: Input length of input_ids is 31, but `max_length` is set to 20. This can lead to unexpected behavior. You should consider increasing `max_length` or, better yet, setting `max_new_tokens`.',
    overflow: false,
  },
  {
    source: 'stanford-crfm/helm#97',
    error:
      'OpenAI error: Rate limit reached for tokens. Limit: 150000.000000 / min. Current: 176000.000000 / min. Contact support@openai.com if you continue to have issues.',
    overflow: false,
  },
  {
    source: 'dragon1086/prism-insight#48',
    error:
      "[ERROR] 2025-10-05T13:19:21 mcp_agent.executor.executor - Error executing task: Error code: 429 - {'error': {'message': 'Request too large for gpt-4.1 in organization org-H804Ggv7sCGgufN5KM1WhLbu on tokens per min\n(TPM): Limit 30000, Requested 56336. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.', 'type': 'tokens', 'param': None,\n'code': 'rate_limit_exceeded'}}",
    overflow: false,
  },
  {
    source: 'rotemweiss57/gpt-newspaper#10',
    error:
      "openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4 in organization org-********** on tokens per min (TPM): Limit 10000, Used 9348, Requested 5086. Please try again in 26.604s. Visit https://platform.openai.com/account/rate-limits to learn more.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}",
    overflow: false,
  },
  {
    source: 'google-gemini/gemini-cli#8029 (express body-size limit)',
    error: '"PayloadTooLargeError: request entity too large"',
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'GerardPolloRebozado/social-to-mealie#32 (Whisper upload byte cap)',
    error: '413 413: Maximum content size limit (26214400) exceeded (26358048 bytes read)',
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'WEIFENG2333/VideoCaptioner#703 (Whisper upload byte cap (gateway))',
    error:
      "音频识别失败: Error code: 413 - {'error': {'message': 'Maximum content size limit (26214400) exceeded (26222592 bytes read) (request id: 20250715191306787520951i8nD7yRe)', 'type': 'server_error', 'param': 'null', 'code': 'null'}}",
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'WEIFENG2333/VideoCaptioner#724',
    error:
      "2025-07-29 14:03:15 - whisper_api - ERROR - 音频识别失败: Error code: 413 - {'error': {'message': 'Request Entity Too Large', 'type': 'invalid_request_error', 'code': 'request_too_large'}}",
    overflow: false,
    tooLarge: true,
  },
  {
    source: 'jekalmin/extended_openai_conversation#252 (response max_tokens cap (output), not the window)',
    error: "Something went wrong: token length('150') exceeded. Increase maximum token to avoid he issue.",
    overflow: false,
  },
  {
    source: 'Aethena-Lab/Z3r0#13',
    error: 'Invalid message payload: send.content.0.text.text: String should have at most 20000 characters',
    overflow: false,
  },
  {
    source: 'wit-ai/wit#1698',
    error: 'Message is either too short or too long (max is 280)',
    overflow: false,
  },
  {
    source: 'cccaballero/manolo_bot#30',
    error:
      'telebot.apihelper.ApiTelegramException: A request to the Telegram API was unsuccessful. Error code: 400. Description: Bad Request: message is too long',
    overflow: false,
  },
  {
    source: 'Tele-Bots/CovidBot#39',
    error: 'Unhandled rejection Error: ETELEGRAM: 400 Bad Request: message is too long',
    overflow: false,
  },
  {
    source:
      'aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws#998 (Bedrock many-image dimension cap)',
    error: 'image exceed max allowed size for many-image requests: 2000 pixels',
    overflow: false,
  },
  {
    source: 'aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws#778',
    error:
      'ValidationException: The model returned the following errors:\nmessages.0.content.2.image.source.bytes: image exceeds 5 MB maximum:\n7167852 bytes > 5242880 bytes',
    overflow: false,
  },
  {
    source: 'cline/cline#1844 (Bedrock image/document count cap)',
    error: 'too many images and documents: 21 + 0 > 20',
    overflow: false,
  },
  {
    source: 'infiniflow/ragflow#13063',
    error:
      "[ERROR]Error code: 400 - {'error': {'code': 'InvalidParameter', 'message': 'Image 0 failed: Image exceeds the maximum allowed total pixels. Current dimensions: 4634x12324 = 57109416 pixels. Maximum allowed: 36000000 pixels. Request id: 02177061212376864d8a6219dbbdb6281842e0590025e92aab7aa', 'param': '', 'type': 'BadRequest'}}",
    overflow: false,
  },
  {
    source: 'nlpodyssey/openai-agents-go#20 (agent turn cap)',
    error: '❌ Streaming error: Max turns (10) exceeded',
    overflow: false,
  },
  {
    source: 'openai/openai-agents-python#1442 (agent turn cap)',
    error: 'agents.exceptions.MaxTurnsExceeded: Max turns (10) exceeded',
    overflow: false,
  },
  {
    source: 'langchain-ai/langchain#8493 (agent iteration cap)',
    error: 'Agent stopped due to iteration limit or time limit',
    overflow: false,
  },
  {
    source: 'crewAIInc/crewAI-examples#9 (agent iteration cap)',
    error: 'Task output: Agent stopped due to max iterations.',
    overflow: false,
  },
  {
    source: 'Gitlawb/openclaude#1549',
    error:
      '429 {"error":{"message":"Rate limit exceeded: free-models-per-day-high-balance.","type":"rate_limit_error","code":"429"}}',
    overflow: false,
  },
  {
    source: 'n8n-io/n8n#19117',
    error:
      '{\n  "errorMessage": "OpenAI: Rate limit reached",\n  "errorDescription": "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day",\n  "errorDetails": {},\n  "n8nDetails": {\n    "time": "3/9/2025, 05.17.16",\n    "n8nVersion": "1.109.1 (Self Hosted)",\n    "binaryDataMode": "default"\n  }\n}',
    overflow: false,
  },
  {
    source: 'diegosouzapw/OmniRoute#10656',
    error: '✻ 429 [429]: Error from provider (Console): Rate limit exceeded. Please try again later',
    overflow: false,
  },
];

const TABLE = [...OVERFLOWS, ...NEAR_MISSES];

/** What a row's error says, for the size check: an Error's name and message, else its JSON. */
function textOf(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message} ${JSON.stringify({ ...error })}`;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** Ids, timestamps, URLs, versions and words with digits: numbers that are not token counts. */
const NOT_COUNTS = [
  /https?:\/\/\S+/g,
  /\breq_\w+/g,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b[0-9A-F]{3,}(?::[0-9A-F]+){2,}\b/g,
  /\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?/g,
  /\b\d+\.\d+(?:\.\d+)*\b/g,
  /\b\w*[a-z_]\d[\w-]*\b/gi,
  // HTTP statuses where clients print them: `Error code: 400`, `HTTP 413`, `400 Bad Request`, `<400>`.
  /(?:^|\berror(?: code)?|\bhttp(?:\/[\d.]+)?|\bstatus(?: ?code)?|code)[\s:=<("']*[45]\d\d\b|\b[45]\d\d(?=>|\s*[-<]|\s+(?:bad request|error|request|too|\{))/gi,
  // Negative codes (JSON-RPC's -32603) and stack-trace positions (extension.js:634:4090).
  /-\d+/g,
  /:\d+:\d+\b/g,
];

/**
 * The distinct numbers of 256 or more an error names, HTTP statuses aside: with two or more it states a
 * count and its limit, independently of the parsers (a row that forgets its `tokens` shows up here).
 */
function namedCounts(error: unknown): number[] {
  let text = textOf(error);
  for (const pattern of NOT_COUNTS) text = text.replace(pattern, ' ');
  const found = new Set<number>();
  for (const match of text.matchAll(/\b\d{1,3}(?:,\d{3})+\b|\b\d{3,}\b/g)) {
    const value = Number(match[0].replaceAll(',', ''));
    if (value >= 256) found.add(value);
  }
  return [...found];
}

/** Precision and recall of `isContextOverflowError` on the table. */
function score(): { precision: number; recall: number; missed: string[]; falseAlarms: string[] } {
  let truePositives = 0;
  let falsePositives = 0;
  const missed: string[] = [];
  const falseAlarms: string[] = [];
  for (const row of TABLE) {
    const detected = isContextOverflowError(row.error);
    if (detected && row.overflow) truePositives++;
    if (detected && !row.overflow) {
      falsePositives++;
      falseAlarms.push(row.source);
    }
    if (!detected && row.overflow) missed.push(row.source);
  }
  const positives = OVERFLOWS.length;
  return {
    precision: truePositives + falsePositives === 0 ? 1 : truePositives / (truePositives + falsePositives),
    recall: truePositives / positives,
    missed,
    falseAlarms,
  };
}

describe('the table of real provider errors', () => {
  test('holds overflows from every supported provider and near misses of every kind', () => {
    const providers = new Set(OVERFLOWS.map((row) => row.provider).filter((p) => p !== undefined));
    for (const provider of [
      'openai',
      'azure',
      'anthropic',
      'bedrock',
      'google',
      'mistral',
      'openrouter',
      'groq',
      'deepseek',
      'xai',
      'together',
      'fireworks',
      'cohere',
      'vllm',
      'llama.cpp',
      'ollama',
      'lmstudio',
      'copilot',
    ] as const) {
      expect(providers, provider).toContain(provider);
    }
    expect(OVERFLOWS.length).toBeGreaterThanOrEqual(150);
    expect(NEAR_MISSES.length).toBeGreaterThanOrEqual(55);
  });

  test('precision is 100% and recall at least 98%', () => {
    const { precision, recall, missed, falseAlarms } = score();
    expect(falseAlarms).toEqual([]);
    expect(precision).toBe(1);
    expect(recall, `missed: ${missed.join('; ')}`).toBeGreaterThanOrEqual(0.98);
  });

  test('every overflow that states its sizes has them parsed, exactly, and no other does', () => {
    const stating = OVERFLOWS.filter((row) => namedCounts(row.error).length >= 2);
    expect(stating.filter((row) => row.tokens === undefined).map((row) => row.source)).toEqual([]);
    expect(OVERFLOWS.filter((row) => row.tokens !== undefined && !stating.includes(row))).toEqual([]);
    for (const row of OVERFLOWS)
      expect(parseOverflowTokens(row.error), row.source).toEqual(row.tokens ?? null);
  });

  test.each(NEAR_MISSES.map((row) => [row.source, row] as const))('%s is not an overflow', (_source, row) => {
    expect(isContextOverflowError(row.error)).toBe(false);
    expect(getContextOverflowProvider(row.error)).toBeNull();
    expect(parseOverflowTokens(row.error)).toBeNull();
  });

  test.each(OVERFLOWS.filter((row) => row.provider !== undefined).map((row) => [row.source, row] as const))(
    '%s names its provider',
    (_source, row) => {
      expect(getContextOverflowProvider(row.error)).toBe(row.provider);
    },
  );

  test.each(OVERFLOWS.filter((row) => row.tokens !== undefined).map((row) => [row.source, row] as const))(
    '%s states its sizes',
    (_source, row) => {
      expect(parseOverflowTokens(row.error)).toEqual(row.tokens);
    },
  );

  test.each(TABLE.filter((row) => typeof row.error === 'string').map((row) => [row.source, row] as const))(
    '%s gets the same verdict in every shape a client wraps it in',
    (_source, row) => {
      const text = row.error as string;
      const body = JSON.stringify({ error: { message: text } });
      const shapes: unknown[] = [
        new Error(text),
        { error: { message: text } },
        body,
        `Error: ${body}`,
        Object.assign(new Error('Bad Request'), { name: 'AI_APICallError', responseBody: body }),
        Object.assign(new Error('Bad Request'), {
          name: 'AI_APICallError',
          data: { error: { message: text } },
        }),
        new Error('request failed', { cause: new Error('upstream error', { cause: text }) }),
      ];
      for (const shape of shapes) {
        expect(isContextOverflowError(shape)).toBe(isContextOverflowError(text));
        expect(getContextOverflowProvider(shape)).toBe(getContextOverflowProvider(text));
        expect(parseOverflowTokens(shape)).toEqual(parseOverflowTokens(text));
      }
    },
  );

  test('body-size errors are request-too-large, overflows and rate limits are not', () => {
    for (const row of TABLE) {
      expect(isRequestTooLargeError(row.error), row.source).toBe(row.tooLarge === true);
    }
  });
});
