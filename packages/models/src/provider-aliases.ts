import { normalizeIdentifier } from './arguments.js';

/**
 * Other names of the built-in catalog's providers, as apps, SDKs and gateways spell them (`_` is
 * read as `-`, so LiteLLM's `vertex_ai` and LangChain's `google_genai` are here too). A `Map`, so
 * names such as `constructor` or `__proto__` find nothing instead of `Object.prototype`.
 */
const PROVIDER_ALIASES: ReadonlyMap<string, string> = /* @__PURE__ */ new Map([
  // Google's Gemini API (the AI SDK's `google.generative-ai`).
  ['google', 'google-ai'],
  ['gemini', 'google-ai'],
  ['google-genai', 'google-ai'],
  ['google-generative-ai', 'google-ai'],
  // Vertex AI (the AI SDK's `google.vertex.chat`).
  ['google-vertex', 'vertex'],
  ['google-vertexai', 'vertex'],
  ['vertex-ai', 'vertex'],
  ['vertexai', 'vertex'],
  // Amazon Bedrock (the AI SDK's `amazon-bedrock`).
  ['amazon-bedrock', 'bedrock'],
  ['aws-bedrock', 'bedrock'],
  // Azure OpenAI (the AI SDK's `azure.chat`, `azure.responses`).
  ['azure-openai', 'azure'],
  ['mistralai', 'mistral'],
  ['hugging-face', 'huggingface'],
]);

/**
 * AI SDK provider ids whose first segment is not the API the model is served by: Claude on Vertex
 * is counted by Anthropic's rules, the rest of `google.vertex.*` is Vertex, not the Gemini API.
 */
const AI_SDK_RENAMED: readonly (readonly [RegExp, string])[] = [
  [/^(?:google\.)?vertex\.anthropic(?:\.|$)/, 'anthropic'],
  [/^google\.vertex(?:\.|$)/, 'vertex'],
];

/**
 * The built-in catalog's name for a provider: an alias (`google` → `google-ai`, `amazon-bedrock` →
 * `bedrock`, `azure-openai` → `azure`, `vertex_ai` → `vertex`) or an AI SDK provider id
 * (`anthropic.messages` → `anthropic`, `openai.responses` → `openai`, `google.generative-ai` →
 * `google-ai`, `google.vertex.chat` → `vertex`). Any other name comes back trimmed and lower-cased
 * (its first dot-separated segment, for an AI SDK id). Throws `InvalidInputError` for a blank name.
 */
export function catalogProvider(provider: string): string {
  const id = normalizeIdentifier(provider, 'provider');
  for (const [pattern, name] of AI_SDK_RENAMED) if (pattern.test(id)) return name;
  const first = id.split('.')[0] || id;
  return PROVIDER_ALIASES.get(first.replaceAll('_', '-')) ?? first;
}
