import { packageConfig } from '../../tsdown.config.ts';

// The rank tables stay separate files (ranks/), loaded on first use, not bundled into dist.
export default packageConfig(['src/index.ts'], { deps: { neverBundle: [/\/ranks\//] } });
