import { packageConfig } from '../../tsdown.config.ts';

export default packageConfig(['src/index.ts']);
