import { type ContextTools, parseOptions, throwIfAborted } from '@ctxguard/core';
import { z } from 'zod';
import { parseExtractFactsRequest, parseSummarizeRequest } from './context-tools.js';
import { summarizeExtractively } from './extractive-summary.js';
import { extractFactsFromText } from './fact-extractors.js';
import { redactSecrets } from './redact-secrets.js';

/** Schema of {@link OfflineContextToolsOptions}. */
export const offlineContextToolsOptionsSchema = z.object({
  /** Most facts one `extractFacts` call returns; errors, commands, paths and versions are kept first (default 400). */
  maxFacts: z.number().int().positive().default(400),
  /** Longer fact values (error lines, decisions) become a verbatim slice of this many characters (default 300). */
  maxFactLength: z.number().int().min(20).default(300),
  /** Longest line a summary keeps; longer ones are cut at a word (default 300). */
  maxSummaryLineLength: z.number().int().min(20).default(300),
  /** Most files listed per list in a summary (default 40). */
  maxFilesListed: z.number().int().positive().default(40),
  /**
   * Share of a summary's `maxLength` (0–1) a digest of the summarized facts may take — error
   * lines and commands one per line, paths, versions and figures comma-separated — before the key
   * lines (default 0.5; 0: no digest).
   */
  summaryDigestShare: z.number().min(0).max(1).default(0.5),
  /** Redact secrets before summarizing or extracting (default true). */
  redact: z.boolean().default(true),
});

/** Options of {@link createOfflineContextTools}. */
export type OfflineContextToolsOptions = z.input<typeof offlineContextToolsOptionsSchema>;

/**
 * The default {@link ContextTools}: no model, no network. `summarize` is extractive and
 * `extractFacts` uses deterministic extractors; both take plain text or messages rendered with
 * {@link renderTranscript} (one `[user]` / `[assistant]` / `[tool]` header per message), redact
 * secrets first, validate their request and honour its `signal`.
 */
export function createOfflineContextTools(options?: OfflineContextToolsOptions): ContextTools {
  const settings = parseOptions(
    offlineContextToolsOptionsSchema,
    options,
    'createOfflineContextTools options',
  );
  const clean = (text: string) => (settings.redact ? redactSecrets(text) : text);
  return {
    specificationVersion: 'v1',
    async summarize(request) {
      const { content, maxLength, focus, signal } = parseSummarizeRequest(request);
      throwIfAborted(signal);
      return summarizeExtractively(clean(content), {
        maxLength,
        focus,
        signal,
        maxFilesListed: settings.maxFilesListed,
        maxLineLength: settings.maxSummaryLineLength,
        digestShare: settings.summaryDigestShare,
      });
    },
    async extractFacts(request) {
      const { content, categories, signal } = parseExtractFactsRequest(request);
      throwIfAborted(signal);
      return extractFactsFromText(clean(content), {
        categories,
        signal,
        maxFacts: settings.maxFacts,
        maxValueLength: settings.maxFactLength,
      });
    },
  };
}
