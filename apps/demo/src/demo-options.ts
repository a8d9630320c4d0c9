import { fileURLToPath } from 'node:url';
import { describeZodIssues, InvalidOptionsError } from 'ctxguard';
import { z } from 'zod';
import { transcriptFormats } from './transcript.js';

/** The transcript shipped with the demo. */
export const DEFAULT_TRANSCRIPT = fileURLToPath(
  new URL('../transcripts/agent-session.json', import.meta.url),
);

const integerText = (what: string, min: number) =>
  z.union([z.number(), z.string()]).transform((value, ctx) => {
    const n = typeof value === 'number' ? value : Number(value.replaceAll('_', ''));
    if (!Number.isInteger(n) || n < min) {
      ctx.addIssue({
        code: 'custom',
        message: `${what} must be an integer ≥ ${min} (got ${JSON.stringify(value)})`,
      });
      return z.NEVER;
    }
    return n;
  });

/** Options of one demo run, as the flags give them (validated with zod). */
export const demoOptionsSchema = z
  .strictObject({
    /** Strategy names (comma-separated or repeated), or `all`. */
    strategy: z.array(z.string().min(1)).default(['all']),
    /** The context limit replayed against, in tokens. */
    window: integerText('window', 1_000).default(32_000),
    /** `provider/model` whose tokenizer and output limit are used. */
    model: z
      .string()
      .regex(/^[^/\s]+\/\S+$/, 'must be provider/model, e.g. openai/gpt-4o')
      .default('openai/gpt-4o'),
    /** Output tokens each request asks for (sizes the output reserve). */
    maxOutput: integerText('max-output', 0).default(4_096),
    transcript: z.string().min(1).default(DEFAULT_TRANSCRIPT),
    format: z.enum(transcriptFormats).default('auto'),
    /** Where the HTML report goes; `false` (`--no-report`) writes none. */
    report: z.union([z.string().min(1), z.literal(false)]).default('ctxguard-report.html'),
    json: z.boolean().default(false),
    progress: z.boolean().default(true),
    openaiBaseUrl: z.url({ protocol: /^https?$/ }).optional(),
    openaiModel: z.string().min(1).optional(),
  })
  .superRefine(({ window, maxOutput }, ctx) => {
    // A window the output reserve fills leaves no input: every request would be declined.
    if (window <= maxOutput)
      ctx.addIssue({
        code: 'custom',
        path: ['window'],
        message: `window must be larger than --max-output (got ${window} ≤ ${maxOutput})`,
      });
  });

/** Options of one demo run. */
export type DemoOptions = z.output<typeof demoOptionsSchema>;

/** The flag a schema path names: `maxOutput` → `--max-output`. */
function flagOf(path: readonly (string | number)[]): string {
  const name = String(path[0] ?? 'options');
  return `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Validates the parsed flags; the error (`invalid_options`) names the flag: `--window: …`. */
export function parseDemoOptions(raw: Record<string, unknown>): DemoOptions {
  const result = demoOptionsSchema.safeParse(raw);
  if (result.success) return result.data;
  const issues = describeZodIssues(result.error);
  const text = issues.map((issue) => `${flagOf(issue.path)}: ${issue.message}`).join('; ');
  throw new InvalidOptionsError(text, issues[0]?.path ?? [], { cause: result.error });
}
