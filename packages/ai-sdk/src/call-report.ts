import { parseInput } from '@ctxguard/core';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import type { CallReport } from './ctxguard-middleware.js';

/** A step's provider metadata, with the report the middleware wrote under `ctxguard`. */
const providerMetadataSchema = lazySchema(() =>
  z.preprocess(
    (value, ctx) => {
      // `in`, not the parsed copy: a result's `providerMetadata` is a getter on its class.
      if (typeof value === 'object' && value !== null && 'providerMetadata' in value)
        ctx.addIssue({
          code: 'custom',
          message: 'pass result.providerMetadata (or a step’s), not the whole result',
        });
      return value;
    },
    z.looseObject({
      ctxguard: z
        .looseObject({
          conversationId: z.string(),
          actions: z.array(z.looseObject({ type: z.string() })),
          droppedSignedReasoning: z.number(),
          current: z.number(),
          window: z.number().nullable(),
          inputBudget: z.number().nullable(),
          unguarded: z.boolean(),
        })
        .optional(),
    }),
  ),
);

/**
 * The {@link CallReport} the middleware wrote into a call's provider metadata, typed:
 * `callReportOf(result.providerMetadata)`, or a step's. Undefined when the call did not go through
 * the middleware (no metadata, or none of ctxguard's).
 */
export function callReportOf(providerMetadata: unknown): CallReport | undefined {
  if (providerMetadata === undefined) return undefined;
  const parsed = parseInput(providerMetadataSchema, providerMetadata, 'providerMetadata');
  return parsed.ctxguard as CallReport | undefined;
}
