import { packageProject } from '../../vitest.shared.ts';

// Every test runs the real CLI in a child process (tsx compiles the sources on start), or a browser.
export default packageProject('demo', { testTimeout: 180_000, hookTimeout: 60_000 });
