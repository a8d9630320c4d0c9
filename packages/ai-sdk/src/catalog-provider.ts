/** AI SDK provider ids whose first segment is not the catalog's provider name. */
const RENAMED: readonly (readonly [RegExp, string])[] = [
  [/^amazon-bedrock\b/, 'bedrock'],
  [/^google\.vertex\.anthropic\b/, 'anthropic'],
  [/^vertex\.anthropic\b/, 'anthropic'],
  [/^google\b/, 'google-ai'],
];

/**
 * The catalog's provider name for an AI SDK model's `provider` (`anthropic.messages` → `anthropic`,
 * `openai.responses` → `openai`, `amazon-bedrock` → `bedrock`, `google.generative-ai` → `google-ai`).
 */
export function catalogProvider(aiSdkProvider: string): string {
  for (const [pattern, name] of RENAMED) if (pattern.test(aiSdkProvider)) return name;
  return aiSdkProvider.split('.')[0] || aiSdkProvider;
}
