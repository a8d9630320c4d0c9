import { configDefaults } from 'vitest/config';
import { packageProject } from '../../vitest.shared.ts';

// test-v7 is its own package (AI SDK 7 under Node 22), started by test/ai-sdk-7.test.ts.
export default packageProject('ai-sdk', {
  setupFiles: ['./test/setup.ts'],
  exclude: [...configDefaults.exclude, 'test-v7/**'],
});
