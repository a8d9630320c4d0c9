import {
  type ContextTools,
  CtxGuardError,
  type ExtractedFact,
  type ExtractFactsRequest,
  factCategories,
  type SummarizeRequest,
} from 'ctxguard';
import { z } from 'zod';

/** Where the OpenAI-compatible server is and which of its models to ask. */
export interface OpenAIContextToolsOptions {
  /** Base URL up to and including the version, e.g. `http://localhost:8080/v1`. */
  baseUrl: string;
  /** Model id the server knows. */
  model: string;
  /** Sent as a bearer token when set (local servers usually need none). */
  apiKey?: string | undefined;
  /** Per-request timeout in ms (default 60 s). */
  timeoutMs?: number | undefined;
}

const completionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

const factsSchema = z.object({
  facts: z.array(
    z.object({
      key: z.string().min(1).max(80),
      value: z.string().min(1),
      category: z.enum(factCategories).catch('other'),
    }),
  ),
});

const SUMMARY_PROMPT =
  'You compress an agent conversation for the agent itself. Write a dense summary: the task, decisions made, files touched (exact paths), commands run, errors seen (exact lines), and what is left to do. Never invent anything. Plain text, no preamble.';
const FACTS_PROMPT = `Extract facts the agent will need later from the text: file paths, commands, error lines, versions, numbers with units, decisions. Copy each value verbatim from the text. Answer with JSON only: {"facts":[{"key":"snake_case_label","value":"verbatim text","category":"one of ${factCategories.join('|')}"}]}`;

/** The JSON object inside a reply that may wrap it in prose or a code fence. */
function jsonOf(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error('no JSON object in the reply');
  return JSON.parse(text.slice(start, end + 1));
}

/**
 * `ContextTools` backed by any OpenAI-compatible chat completions server (llama.cpp, vLLM, Ollama,
 * OpenAI): summaries and facts come from the model. Facts whose value is not found verbatim in the
 * text are dropped, so a model cannot put words in the conversation's mouth.
 */
export class OpenAIContextTools implements ContextTools {
  readonly specificationVersion = 'v1' as const;
  readonly #options: OpenAIContextToolsOptions & { timeoutMs: number };

  constructor(options: OpenAIContextToolsOptions) {
    this.#options = {
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      timeoutMs: options.timeoutMs ?? 60_000,
    };
  }

  async #complete(system: string, user: string, maxTokens: number, signal?: AbortSignal): Promise<string> {
    const signals = [AbortSignal.timeout(this.#options.timeoutMs), ...(signal ? [signal] : [])];
    const response = await fetch(`${this.#options.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.#options.apiKey ? { authorization: `Bearer ${this.#options.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: this.#options.model,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        max_tokens: maxTokens,
        temperature: 0,
      }),
      signal: AbortSignal.any(signals),
    });
    if (!response.ok)
      throw new CtxGuardError(
        'context_tools_error',
        `${this.#options.baseUrl}/chat/completions answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
      );
    const parsed = completionSchema.safeParse(await response.json());
    if (!parsed.success)
      throw new CtxGuardError(
        'context_tools_error',
        `${this.#options.baseUrl}: not a chat completion response`,
      );
    return parsed.data.choices[0]!.message.content ?? '';
  }

  /** A model-written summary of at most `maxLength` characters. */
  async summarize(request: SummarizeRequest): Promise<string> {
    const focus = request.focus ? `\nFavour: ${request.focus}` : '';
    const prompt = `${SUMMARY_PROMPT}\nAt most ${request.maxLength} characters.${focus}`;
    const text = await this.#complete(
      prompt,
      request.content,
      Math.ceil(request.maxLength / 3),
      request.signal,
    );
    return text.trim().slice(0, request.maxLength);
  }

  /** Facts the model found, kept only when their value occurs verbatim in the content. */
  async extractFacts(request: ExtractFactsRequest): Promise<ExtractedFact[]> {
    const only = request.categories ? `\nOnly these categories: ${request.categories.join(', ')}.` : '';
    const text = await this.#complete(`${FACTS_PROMPT}${only}`, request.content, 1_024, request.signal);
    let parsed: z.infer<typeof factsSchema>;
    try {
      parsed = factsSchema.parse(jsonOf(text));
    } catch (error) {
      throw new CtxGuardError(
        'context_tools_error',
        `facts reply is not the JSON asked for: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    return parsed.facts.filter(
      (fact) =>
        request.content.includes(fact.value) &&
        (!request.categories || request.categories.includes(fact.category)),
    );
  }
}
