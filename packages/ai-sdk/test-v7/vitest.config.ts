import { packageProject } from '../../../vitest.shared.ts';

export default packageProject('ai-sdk-v7', { setupFiles: ['./test/setup.ts'] });
