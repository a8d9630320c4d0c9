import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'internal/*/vitest.config.ts',
      'apps/*/vitest.config.ts',
      'examples/*/vitest.config.ts',
      'test/vitest.config.ts',
    ],
  },
});
