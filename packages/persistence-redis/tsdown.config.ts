import { packageConfig } from '../../tsdown.config.ts';

// ioredis and the test helpers need Node, so this package builds for the Node platform.
export default packageConfig(['src/index.ts', 'src/testing.ts'], { platform: 'node' });
