import { packageProject } from '../../vitest.shared.ts';

export default packageProject('ai-sdk', { setupFiles: ['./test/setup.ts'] });
