import { mergeConfig } from 'vitest/config';
import { packageProject } from '../../../vitest.shared.ts';

// `ai` is resolved from this package for every importer, @ctxguard/ai-sdk's source included, so the
// whole package runs on ai 7 as it does in an app that installs ai 7.
export default mergeConfig(
  packageProject('ai-sdk-v7', {
    setupFiles: ['./test/setup.ts'],
    // Started from the Node 20 suite, it shares the machine with the other projects.
    testTimeout: 120_000,
  }),
  {
    resolve: { dedupe: ['ai'] },
  },
);
