/** Which API produced a context overflow; `generic` is wording several servers share with no other clue. */
export type ContextOverflowProvider =
  | 'openai'
  | 'azure'
  | 'anthropic'
  | 'bedrock'
  | 'google'
  | 'mistral'
  | 'openrouter'
  | 'groq'
  | 'deepseek'
  | 'xai'
  | 'together'
  | 'fireworks'
  | 'cohere'
  | 'cerebras'
  | 'vllm'
  | 'llama.cpp'
  | 'ollama'
  | 'lmstudio'
  | 'copilot'
  | 'generic';

/** One provider's overflow wording. */
export interface OverflowSignature {
  readonly provider: ContextOverflowProvider;
  readonly pattern: RegExp;
}

/** Token counts stated by an overflow message; `requested - input` is the output reserve it counted. */
export interface StatedCounts {
  readonly requested: number;
  readonly limit: number;
  readonly input?: number;
}

/** A number as providers print it: `208000` or `200,049`. */
const N = String.raw`(\d{1,3}(?:,\d{3})+|\d+)`;

function rx(source: string): RegExp {
  return new RegExp(source, 'i');
}

/**
 * Overflow wordings, most specific first: the first match names the provider unless a host or wrapper
 * clue says otherwise. Each one was seen in a real provider response (see the test table).
 */
export const OVERFLOW_SIGNATURES: readonly OverflowSignature[] = [
  {
    provider: 'anthropic',
    pattern: rx(String.raw`prompt is too long:\s*${N}\s*tokens?\s*>\s*${N}\s*maximum`),
  },
  { provider: 'anthropic', pattern: /input length and `?max_tokens`? exceed context limit/i },
  // Anthropic's 413 (also through Vertex AI): a window overflow, unlike its 413 `request_too_large`.
  { provider: 'anthropic', pattern: /request size exceeds (?:the )?model'?s? context window/i },
  // The whole message, or a quoted `message` value: the bare words also name client-side checks.
  {
    provider: 'anthropic',
    pattern:
      /(?:^\s*(?:[\w.-]+(?: [\w.-]+){0,2}:\s*)?|\\?["']message\\?["']\s*:\s*\\?["'])prompt is too long\.?\s*(?:\\?["']|$)/i,
  },
  { provider: 'copilot', pattern: /prompt token count of \d[\d,]* exceeds the limit of \d/i },
  { provider: 'copilot', pattern: /model_max_prompt_tokens_exceeded/i },
  { provider: 'bedrock', pattern: /input is too long for requested model/i },
  {
    provider: 'bedrock',
    pattern: /too many input tokens\.\s*max input tokens:\s*\d[\d,]*,\s*request input token count:\s*\d/i,
  },
  {
    provider: 'google',
    pattern: /input token count(?: is)?\s*(?:\(\d[\d,]*\)\s*)?exceeds the maximum number of tokens allowed/i,
  },
  {
    provider: 'google',
    pattern:
      /unable to submit request because the input token count is \d[\d,]* but model only supports up to/i,
  },
  { provider: 'azure', pattern: /input tokens exceed the configured limit of \d/i },
  { provider: 'xai', pattern: /maximum prompt length is \d[\d,]* but the request contains \d[\d,]* tokens/i },
  { provider: 'openrouter', pattern: /endpoint\\?'?s maximum context length is \d/i },
  { provider: 'mistral', pattern: /too large for model with \d[\d,]* maximum context length/i },
  { provider: 'fireworks', pattern: /the prompt is too long: \d[\d,]*, model maximum context length: \d/i },
  { provider: 'together', pattern: /`?inputs`? tokens \+ `?max_new_tokens`? must be <=\s*\d/i },
  { provider: 'together', pattern: /`?inputs`? must have less than \d[\d,]* tokens/i },
  {
    provider: 'together',
    pattern:
      /input token count \(\d[\d,]*\) plus the requested output count \(\d[\d,]*\) exceeds the model'?s maximum context length/i,
  },
  {
    provider: 'cohere',
    pattern: /too many tokens: total number of tokens \(prompt and prediction\) cannot exceed/i,
  },
  { provider: 'cohere', pattern: /too many tokens: size limit exceeded/i },
  { provider: 'cerebras', pattern: /current length is \d[\d,]* while limit is \d/i },
  { provider: 'llama.cpp', pattern: /exceed_context_size_error/i },
  {
    provider: 'llama.cpp',
    pattern:
      /\b(?:request|decoding|prompt|input) (?:\(\d[\d,]* tokens\) )?exceeds the available context size/i,
  },
  { provider: 'llama.cpp', pattern: /\binput (?:\(\d[\d,]* tokens\) )?is larger than the max context size/i },
  { provider: 'llama.cpp', pattern: /context size has been exceeded/i },
  { provider: 'llama.cpp', pattern: /requested tokens (?:\(\d[\d,]*\) )?exceed context window of \d/i },
  {
    provider: 'lmstudio',
    pattern: /tokens to keep from the initial prompt is greater than the context length/i,
  },
  { provider: 'lmstudio', pattern: /trying to keep the first \d[\d,]* tokens when context the overflows/i },
  {
    provider: 'lmstudio',
    pattern:
      /reached context length of \d[\d,]* tokens with model .{0,120}?does not currently support mid-generation context overflow/i,
  },
  { provider: 'lmstudio', pattern: /input length \d[\d,]* exceeds context length \d/i },
  // llama.cpp's own wording (LM Studio's, above, says the same with more words first).
  { provider: 'llama.cpp', pattern: /\bn_keep\b[:\s(]*\d[\d,]*\)?\s*>=?\s*n_ctx\b/i },
  { provider: 'ollama', pattern: /prompt too long; exceeded (?:max )?context length/i },
  { provider: 'ollama', pattern: /the input length exceeds the context length/i },
  { provider: 'vllm', pattern: /the prompt \(total length \d[\d,]*\) is too long to fit into the model/i },
  { provider: 'vllm', pattern: /input prompt \(\d[\d,]* tokens\) is too long and exceeds limit of \d/i },
  { provider: 'vllm', pattern: /the input \(\d[\d,]* tokens\) is longer than the model'?s context length/i },
  {
    provider: 'vllm',
    pattern:
      /'?max_tokens'? or '?max_completion_tokens'? is too large: \d[\d,]*\. this model'?s maximum context length is/i,
  },
  { provider: 'openai', pattern: /your input exceeds the context window of this model/i },
  { provider: 'openai', pattern: /this model'?s?\s+maximum\s+context\s+length\s+is\s+\d/i },
  { provider: 'openai', pattern: /context_length_exceeded/i },
  { provider: 'groq', pattern: /please reduce the length of the messages or completion/i },
  { provider: 'generic', pattern: /prompt too long: \d[\d,]* tokens exceeds max context window/i },
  { provider: 'generic', pattern: /length of prompt_tokens \(\d[\d,]*\) must be less than max_seq_len/i },
  { provider: 'generic', pattern: /exceeded model token limit/i },
  { provider: 'generic', pattern: /range of input length should be \[/i },
  { provider: 'generic', pattern: /context window exceeds limit/i },
  { provider: 'generic', pattern: /maximum context length (?:has been |is )?exceeded/i },
];

/**
 * What is said to be too large: the prompt, input, request, query, sequence or messages, or their
 * number of tokens (not "the context": a context size set too large for a model is configuration).
 */
const SUBJECT = String.raw`(?:(?:decoder\s+)?(?:prompt|input|request(?:ed\s+token\s+count)?|query|sequence|messages?)(?:\s+(?:length|size|tokens?|token\s+count|content))?|number\s+of\s+(?:input\s+|prompt\s+)?tokens)`;
const EXCEEDS = String.raw`(?:exceed(?:s|ed|ing)?|(?:is\s+|are\s+)?(?:too\s+(?:long|large|big)|(?:longer|greater|larger|bigger|more)\s+than)|must\s+be\s+less\s+than|cannot\s+exceed)`;
/** What it is measured against: a maximum, a limit, the context window, the model's length, `n_ctx`. */
const LIMIT = String.raw`(?:max(?:imum)?|limit|context|window|model(?:'?s)?\s+length|max_seq_len|n_ctx|kv\s+size|allowed)`;
/**
 * A measure of tokens or of the window, which the sentence must name: tokens, the context, the
 * window, the model's (or maximum) length. A bare "length" is not one: fields, URIs and database
 * columns have lengths too.
 */
const MEASURE =
  /token|context|window|max_seq_len|n_ctx|\bkv\b|\bmax(?:imum)?(?:\s+(?:model|context|sequence|input))?\s+length\b|\bmodel'?s?\s+length\b|\bsequence\s+length\b/i;

/**
 * The shape most servers' overflow messages share, in words of their own: the prompt (input, request,
 * …) exceeds (is longer than, is too long for) the maximum (limit, context, model length), in one
 * sentence that names tokens or the window.
 */
const OVERFLOW_SHAPE = rx(String.raw`\b${SUBJECT}\b[^.;!?\n]{0,40}?\b${EXCEEDS}\b[^.;!?\n]{0,60}?\b${LIMIT}`);

/** Short forms that say it alone: "context size exceeded", "input is too long", "context shift is disabled". */
const OVERFLOW_SHORT_FORMS: readonly RegExp[] = [
  /\bcontext[ _-]?(?:length|window|size)[ _-]?(?:has\s+been\s+|was\s+|is\s+)?exceeded\b|\bContextWindowExceeded/i,
  /\bprompt_too_long\b/i,
  /\b(?:is|was|are) (?:larger|longer|bigger|greater) than the (?:model'?s? )?context(?: window| length| size)?\b/i,
  /\bout of (?:room|space) in the (?:model'?s )?context window\b/i,
  /\b(?:model\s+)?max(?:imum)?\s+(?:context\s+)?length\s+exceeded\b/i,
  // "Prompt is too long" alone is a signature (the whole message): in prose it may quote a client.
  /\binput\s+(?:tokens?\s+)?(?:is\s+)?too\s+(?:long|large|big)\b(?!\s+for\s+(?:the\s+)?(?:image|file))/i,
  /\bprompt\s+tokens?\s+(?:is\s+|are\s+)?too\s+(?:long|large|big)\b/i,
  /\bcontext shift is disabled\b/i,
  /requires a sequence length of \d[\d,]*, but the maximum supported sequence length is/i,
  /\bprompt_limit\b|\u8f93\u5165\u5185\u5bb9\u8fc7\u957f/i,
];

/** Sizes that are not tokens, limits on one string, file or image, and the output's cap: never a window overflow. */
const NOT_WINDOW_SIZES: readonly RegExp[] = [
  /\b\d[\d,.]*\s*(?:bytes?|[KMG]i?B|characters?|chars|pixels|pages)\b/i,
  /\b(?:images?|pdf|files?|string|body|payload|attachments?)\b[^.]{0,40}\b(?:exceeds?|too (?:long|large))/i,
  /\b(?:max_tokens|max_completion_tokens|max_new_tokens|output tokens?|completion tokens?|maximum tokens you requested)\b[^.]{0,30}\b(?:exceed|too large|must be|cannot)/i,
  /\bmax(?:imum)? output\b|\boutput (?:length|limit|cap)\b/i,
  // Quotas over a period or a plan, and limits on fields, headers, URIs and database columns.
  /\b(?:daily|weekly|monthly|hourly)\b|\byour plan\b|[ -]per[ -](?:second|minute|hour|day)\b/i,
  /\bfield\b|\bheaders?\b|\bURI\b|\bcontent[- ]length\b|\bcharacter varying\b/i,
];

/**
 * Whether `text` says in the general shape, or a short form, that the request did not fit the window:
 * read only when no provider's signature matched, and never where it speaks of other sizes.
 */
export function saysOverflowInGeneral(text: string): boolean {
  // Neither a link's words nor a JSON key (`"message":` is no subject) belong to the message.
  const words = text.replace(/https?:\/\/\S+/g, ' ').replace(/\\?["'][\w-]+\\?["']\s*:/g, ' ');
  if (NOT_WINDOW_SIZES.some((pattern) => pattern.test(words))) return false;
  if (OVERFLOW_SHORT_FORMS.some((pattern) => pattern.test(words))) return true;
  return words
    .split(/(?<=[.;!?])\s+|\n+/)
    .some((sentence) => OVERFLOW_SHAPE.test(sentence) && MEASURE.test(sentence));
}

/**
 * Wordings that look like an overflow but are not one, and win over the signatures: rate limits, quotas
 * and throttling (some name tokens: "Too many tokens, please wait"), spending limits, an output cap the
 * model cannot serve whatever the input, and body-size limits (a separate `isRequestTooLargeError`).
 */
export const NOT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /rate[ _-]?limit/i,
  /too many requests/i,
  /throttl/i,
  /please wait before trying again/i,
  /\b(?:tokens?|requests?)[ -]per[ -](?:min(?:ute)?|hour|day|second)\b/i,
  /\bdeadline exceeded\b/i,
  /\b(?:TPM|RPM|TPD|RPD|ITPM|OTPM)\b/,
  /\bquota/i,
  /resource[ _]?(?:has been )?exhausted/i,
  /credit balance/i,
  /requires more credits/i,
  /can only afford/i,
  /\bbilling\b/i,
  /spend(?:ing)? limit/i,
  /max_tokens is too large:\s*\d[\d,]*\.\s*this model supports at most/i,
  /supports at most \d[\d,]* completion tokens/i,
  /maximum allowed number of output tokens/i,
  /valid range of max_tokens/i,
  /range of max_tokens should be/i,
  /\bmax_tokens\b[^.]{0,40}\bmust be (?:less|between|<)/i,
  /output token maximum/i,
];

/** Wordings of an HTTP body over the server's byte limit (not a token count). */
export const BODY_TOO_LARGE_PATTERNS: readonly RegExp[] = [
  /request_too_large/i,
  /request entity too large/i,
  /payload too large/i,
  /request exceeds the maximum (?:allowed )?(?:size|number of bytes)/i,
  /maximum request body size/i,
  /request payload size exceeds the limit/i,
  /\b(?:content|body|payload|request)\s+size\s+limit\b[^.]{0,60}\bexceeded\b/i,
  /value at 'body' failed to satisfy constraint: member must have length less than or equal to/i,
];

/** API hosts, strongest clue to the provider. */
export const HOST_HINTS: readonly (readonly [RegExp, ContextOverflowProvider])[] = [
  [/openrouter\.ai/i, 'openrouter'],
  [/githubcopilot\.com/i, 'copilot'],
  [/\.azure\.com|\.azure-api\.net/i, 'azure'],
  [/bedrock/i, 'bedrock'],
  [/api\.anthropic\.com/i, 'anthropic'],
  [/api\.openai\.com/i, 'openai'],
  [/googleapis\.com/i, 'google'],
  [/api\.mistral\.ai/i, 'mistral'],
  [/api\.groq\.com/i, 'groq'],
  [/api\.deepseek\.com/i, 'deepseek'],
  [/api\.x\.ai/i, 'xai'],
  [/together\.(?:xyz|ai)/i, 'together'],
  [/fireworks\.ai/i, 'fireworks'],
  [/cohere\.(?:com|ai)/i, 'cohere'],
  [/cerebras\.ai/i, 'cerebras'],
  [/:11434\b/, 'ollama'],
  [/:1234\b/, 'lmstudio'],
];

/** Names of the service or client in the text (wrappers such as LiteLLM's `OpenrouterException`). */
export const SERVICE_HINTS: readonly (readonly [RegExp, ContextOverflowProvider])[] = [
  [/openrouter|middle-out|provider_name|upstream error from/i, 'openrouter'],
  [/\bazure/i, 'azure'],
  [
    /bedrock|validationexception|invokemodel|converse(?:stream)? operation|the model returned the following errors/i,
    'bedrock',
  ],
  [/\bgroq/i, 'groq'],
  [/together(?:_ai|\.ai|\.xyz|ai|client)/i, 'together'],
  [/fireworks/i, 'fireworks'],
  [/cerebras/i, 'cerebras'],
  [/ollama/i, 'ollama'],
  [/lm ?studio/i, 'lmstudio'],
  [/\bvllm\b|serving_chat\.py|serving_engine\.py/i, 'vllm'],
  [/llama[.-]?cpp|llama-server/i, 'llama.cpp'],
  [/vertex|aiplatform/i, 'google'],
];

/** Clues that only refine the OpenAI-shaped messages many servers copy. */
export const OPENAI_FAMILY_HINTS: readonly (readonly [RegExp, ContextOverflowProvider])[] = [
  [/["']object["']\s*:\s*["']error["'][^}]{0,400}["']type["']\s*:\s*["']BadRequestError["']/, 'vllm'],
  [/["']type["']\s*:\s*["']BadRequestError["'][^}]{0,400}["']code["']\s*:\s*400\b/, 'vllm'],
  [/["']code["']\s*:\s*["']invalid_request_error["']/, 'deepseek'],
  [/deepseek/i, 'deepseek'],
  [/\bgemini\b/i, 'google'],
  [/\bcohere\b/i, 'cohere'],
  [/mistral/i, 'mistral'],
  [/\bx\.ai\b|\bxai\b|\bgrok\b/i, 'xai'],
];

function count(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.replaceAll(',', ''));
  return Number.isSafeInteger(value) ? value : undefined;
}

type CountParser = (text: string) => StatedCounts | undefined;

function counts(requested?: number, limit?: number, input?: number): StatedCounts | undefined {
  if (requested === undefined || limit === undefined) return undefined;
  return { requested, limit, ...(input === undefined ? {} : { input }) };
}

/** `requested` is the prompt itself (`prompt is too long: 208000 tokens > 200000 maximum`). */
function promptOver(source: string, requestedGroup: 1 | 2, limitGroup: 1 | 2): CountParser {
  const pattern = rx(source);
  return (text) => {
    const match = pattern.exec(text);
    if (match === null) return undefined;
    const requested = count(match[requestedGroup]);
    return counts(requested, count(match[limitGroup]), requested);
  };
}

/** `input` and `output` stated apart, with the limit (`188240 + 21333 > 200000`). */
function inputPlusOutput(source: string, order: readonly ('input' | 'output' | 'limit')[]): CountParser {
  const pattern = rx(source);
  return (text) => {
    const match = pattern.exec(text);
    if (match === null) return undefined;
    const named: Record<string, number | undefined> = {};
    order.forEach((name, index) => {
      named[name] = count(match[index + 1]);
    });
    const { input, output, limit } = named;
    if (input === undefined || output === undefined) return undefined;
    return counts(input + output, limit, input);
  };
}

const OPENAI_LIMIT = rx(String.raw`maximum\s+context\s+length\s+is\s+${N}\s+tokens`);
// vLLM (and gateways in front of it) says "your request has N input tokens": all of it input.
const OPENAI_REQUESTED = rx(
  String.raw`(?:you\s+requested(?:\s+about)?|resulted\s+in|your\s+request\s+has)\s+${N}\s*(?:input\s+)?tokens`,
);
const INPUT_ONLY = /resulted\s+in|your\s+request\s+has/i;
const OPENAI_PARTS = /^[\s.,]*\(([^()]{0,240})\)/;
const INPUT_PARTS = [
  rx(String.raw`${N}\s+in\s+the\s+messages`),
  rx(String.raw`${N}\s+in\s+the\s+functions`),
  rx(String.raw`${N}\s+in\s+(?:your|the)\s+prompt`),
  rx(String.raw`${N}\s+of\s+(?:text|image|tool|file)\s+input`),
];
const OUTPUT_PARTS = [
  rx(String.raw`${N}\s+(?:in|for)\s+the\s+completion`),
  rx(String.raw`${N}\s+in\s+the\s+output`),
];

/** The sum of every part the patterns find (`658 of text input, 732 of tool input`). */
function sumOf(patterns: readonly RegExp[], text: string): number | undefined {
  let total: number | undefined;
  for (const pattern of patterns) {
    for (const match of text.matchAll(new RegExp(pattern.source, 'gi'))) {
      const value = count(match[1]);
      if (value !== undefined) total = (total ?? 0) + value;
    }
  }
  return total;
}

/** OpenAI's wording and the servers that copy it (Azure, DeepSeek, vLLM, OpenRouter, Groq). */
const openAiCounts: CountParser = (text) => {
  const limit = count(OPENAI_LIMIT.exec(text)?.[1]);
  const requestedMatch = OPENAI_REQUESTED.exec(text);
  const requested = count(requestedMatch?.[1]);
  if (limit === undefined || requested === undefined || requestedMatch === null) return undefined;
  const after = text.slice(requestedMatch.index + requestedMatch[0].length);
  const parts = OPENAI_PARTS.exec(after.slice(0, 260))?.[1] ?? '';
  let input = sumOf(INPUT_PARTS, parts);
  const output = sumOf(OUTPUT_PARTS, parts);
  if (input === undefined && INPUT_ONLY.test(requestedMatch[0])) input = requested;
  if (input === undefined && output !== undefined) input = requested - output;
  return counts(requested, limit, input);
};

/** Numbers beside the text, e.g. llama.cpp's `{"n_prompt_tokens":14429,"n_ctx":8192}`. */
export function countsFromFields(numbers: ReadonlyMap<string, number>): StatedCounts | undefined {
  const prompt = numbers.get('n_prompt_tokens');
  return counts(prompt, numbers.get('n_ctx'), prompt);
}

/** SGLang's and Workers AI's "a total of T tokens: A tokens from the input messages and B for the completion". */
const totalOfInputAndCompletion: CountParser = (text) => {
  const limit = count(rx(`maximum context length of ${N} tokens`).exec(text)?.[1]);
  const match = rx(
    `a total of ${N} tokens: ${N} tokens from the input messages and ${N} tokens for the completion`,
  ).exec(text);
  return match === null ? undefined : counts(count(match[1]), limit, count(match[2]));
};

/** Parsers for every wording that states sizes, most specific first. */
export const COUNT_PARSERS: readonly CountParser[] = [
  promptOver(String.raw`prompt is too long:\s*${N}\s*tokens?\s*>\s*${N}\s*maximum`, 1, 2),
  promptOver(`prompt token count of ${N} exceeds the limit of ${N}`, 1, 2),
  promptOver(String.raw`max input tokens:\s*${N},\s*request input token count:\s*${N}`, 2, 1),
  inputPlusOutput(String.raw`exceed context limit:\s*${N}\s*\+\s*${N}\s*>\s*${N}`, [
    'input',
    'output',
    'limit',
  ]),
  promptOver(
    String.raw`input token count\s*\(${N}\)\s*exceeds the maximum number of tokens allowed\s*\(${N}\)`,
    1,
    2,
  ),
  promptOver(`input token count is ${N} but model only supports up to ${N}`, 1, 2),
  promptOver(String.raw`configured limit of ${N} tokens\.\s*your messages resulted in ${N} tokens`, 2, 1),
  promptOver(`maximum prompt length is ${N} but the request contains ${N} tokens`, 2, 1),
  promptOver(`prompt contains ${N} tokens.{0,80}?too large for model with ${N} maximum context length`, 1, 2),
  promptOver(`prompt is too long: ${N}, model maximum context length: ${N}`, 1, 2),
  inputPlusOutput(
    String.raw`must be <=\s*${N}\.\s*given: ${N} \`?inputs\`? tokens and ${N} \`?max_new_tokens`,
    ['limit', 'input', 'output'],
  ),
  promptOver(String.raw`\`?inputs\`? must have less than ${N} tokens\.\s*given: ${N}`, 2, 1),
  inputPlusOutput(
    String.raw`input token count \(${N}\) plus the requested output count \(${N}\) exceeds the model'?s maximum context length \(${N}\)`,
    ['input', 'output', 'limit'],
  ),
  (text) => {
    const match = rx(`cannot exceed ${N} - received ${N}`).exec(text);
    return match === null ? undefined : counts(count(match[2]), count(match[1]));
  },
  (text) => {
    const match = rx(`current length is ${N} while limit is ${N}`).exec(text);
    return match === null ? undefined : counts(count(match[1]), count(match[2]));
  },
  promptOver(String.raw`"n_prompt_tokens"\s*:\s*${N}[^}]{0,200}?"n_ctx"\s*:\s*${N}`, 1, 2),
  // llama-cpp-python counts the prompt alone here (`len(prompt_tokens) >= n_ctx`).
  promptOver(String.raw`requested tokens \(${N}\) exceed context window of ${N}`, 1, 2),
  promptOver(String.raw`request \(${N} tokens\) exceeds the available context size \(${N} tokens\)`, 1, 2),
  promptOver(String.raw`input \(${N} tokens\) is larger than the max context size \(${N} tokens\)`, 1, 2),
  promptOver(
    String.raw`keep the first ${N} tokens when context the overflows\.\s*however, the model is loaded with context length of only ${N}`,
    1,
    2,
  ),
  promptOver(String.raw`n_keep[:\s(]*${N}\)?\s*>=?\s*n_ctx[:\s(]*${N}`, 1, 2),
  promptOver(`input length ${N} exceeds context length ${N}`, 1, 2),
  promptOver(
    String.raw`the prompt \(total length ${N}\) is too long to fit into the model \(context length ${N}\)`,
    1,
    2,
  ),
  promptOver(String.raw`input prompt \(${N} tokens\) is too long and exceeds limit of ${N}`, 1, 2),
  promptOver(
    String.raw`the input \(${N} tokens\) is longer than the model'?s context length \(${N} tokens\)`,
    1,
    2,
  ),
  inputPlusOutput(
    String.raw`is too large: ${N}\.\s*this model'?s maximum context length is ${N} tokens and your request has ${N} input tokens`,
    ['output', 'limit', 'input'],
  ),
  // vLLM's newer wording, whose input count may be a lower bound ("at least").
  inputPlusOutput(
    String.raw`maximum context length is ${N} tokens\.\s*however, you requested ${N} output tokens and your prompt contains (?:at least )?${N} input tokens`,
    ['limit', 'output', 'input'],
  ),
  openAiCounts,
  promptOver(`prompt too long: ${N} tokens exceeds max context window of ${N}`, 1, 2),
  promptOver(String.raw`length of prompt_tokens \(${N}\) must be less than max_seq_len \(${N}\)`, 1, 2),
  (text) => {
    const match = rx(String.raw`exceeded model token limit: ${N} \(requested: ${N}\)`).exec(text);
    return match === null ? undefined : counts(count(match[2]), count(match[1]));
  },
  (text) => {
    const match = rx(
      `prompt is ${N} tokens long, so generating ${N} tokens requires a sequence length of ${N}, but the maximum supported sequence length is (?:just )?${N}`,
    ).exec(text);
    return match === null ? undefined : counts(count(match[3]), count(match[4]), count(match[1]));
  },
  totalOfInputAndCompletion,
  inputPlusOutput(String.raw`request length ${N}\s*\+\s*${N} is greater than max_seq_len ${N}`, [
    'input',
    'output',
    'limit',
  ]),
  promptOver(String.raw`prompt too long \(${N} tokens, max ${N}\)`, 1, 2),
  // Labelled pairs: `prompt=2782 limit=2048`, `(prompt: 1299 tokens, max context: 1020)`.
  promptOver(
    String.raw`\b(?:prompt|input)(?:[_ ]tokens)?\s*[:=]\s*${N}(?:\s*tokens)?[,;\s]+(?:limit|max(?:imum)?(?:[_ ](?:context|length))?|n_ctx|context(?:[_ ]length)?)\s*[:=]\s*${N}`,
    1,
    2,
  ),
  // A count over its limit, in parentheses after words of tokens exceeding: "exceeds max token count
  // (5910 / 4095)", "Token count … exceeding the limit (4959 / 4095)", "… sequence length (1336 > 512)".
  promptOver(
    String.raw`\b(?:tokens?\b[^.(]{0,80}?\b(?:exceed(?:s|ed|ing)?|longer|larger|greater|more)|(?:exceed(?:s|ed|ing)?|longer|larger|greater|more)\b[^.(]{0,80}?\b(?:tokens?|length))\b[^.(]{0,60}\(\s*${N}\s*(?:\/|>)\s*${N}\s*\)`,
    1,
    2,
  ),
  // Gemini's older wording: "contains (35490) tokens, which is more than the max tokens limit allowed: (30720)".
  promptOver(
    String.raw`\b(?:contains|has)\s*\(?${N}\)?\s*tokens,?\s*(?:which\s+is\s+)?(?:more|greater)\s+than\b[^.\d]{0,60}?\(?(?<![\w.-])${N}(?!\w|\.\d)`,
    1,
    2,
  ),
  // The general shape with its numbers: "<the prompt> (length) N … exceeds / is longer than … M".
  promptOver(
    String.raw`\b(?:decoder\s+)?(?:prompt|input|request|sequence|number\s+of)(?:\s+(?:input\s+|prompt\s+)?(?:length|size|tokens?|token\s+count))?(?:\s+of)?\s*\(?(?:length\s+)?${N}(?:\s+tokens)?\)?\s*(?:(?:has|have)\s+)?(?:exceed(?:s|ed)?|is\s+(?:longer|greater|larger)\s+than|must\s+be\s+less\s+than)[^.\d]{0,60}?\(?(?<![\w.-])${N}(?!\w|\.\d)`,
    1,
    2,
  ),
];
