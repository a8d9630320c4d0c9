import { z } from 'zod';

/**
 * A stage (or step) switch: `true` (the default: the stage's default settings), `false` (skipped) or
 * the stage's settings. Parses to the settings, or `undefined` when the stage is skipped.
 */
export function stageSwitch<T extends z.ZodRawShape>(shape: T) {
  const settings = z.strictObject(shape);
  return z
    .union([z.boolean(), settings])
    .default(true)
    .transform((value) => (value === false ? undefined : value === true ? settings.parse({}) : value));
}
