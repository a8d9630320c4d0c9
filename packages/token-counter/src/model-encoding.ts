import { InvalidInputError } from '@ctxguard/core';
import { describeKind } from '@ctxguard/shared';
import type { ExactEncoding } from './exact-engine.js';

const CL100K_MODELS =
  /^(gpt-4(?![o.]|-?o)|gpt-3\.5|gpt-35|text-embedding-(3|ada-002)|(davinci|babbage)-002|ft:gpt-(4(?![o.])|3\.5))/i;

/** The encoding of an OpenAI model: `cl100k_base` for GPT-4 / GPT-3.5 / embeddings / `davinci-002` and `babbage-002`, `o200k_base` otherwise. */
export function encodingForModel(model: string): ExactEncoding {
  if (typeof model !== 'string')
    throw new InvalidInputError(`model: expected the model id as a string, received ${describeKind(model)}`, [
      'model',
    ]);
  return CL100K_MODELS.test(model) ? 'cl100k_base' : 'o200k_base';
}

/** OpenAI's model ids, after an optional `openai/` vendor prefix (a router's): GPT, o-series, embeddings, fine-tunes. */
const OPENAI_MODEL_IDS =
  /^(?:openai\/)?(?:gpt-|gpt4|chatgpt-|o\d|text-embedding-|(?:davinci|babbage)-002|ft:gpt-)/i;

/**
 * Whether a request goes to a model OpenAI's tokenizers count: one sent to OpenAI or Azure OpenAI
 * (a deployment may have any name), or one whose id is OpenAI's. Another model's count with them
 * is an estimate, however exact the encoding.
 */
export function isOpenAIModel(provider: unknown, model: unknown): boolean {
  if (provider === 'openai' || provider === 'azure') return true;
  return typeof model === 'string' && OPENAI_MODEL_IDS.test(model);
}
