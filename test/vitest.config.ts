import { packageProject } from '../vitest.shared.ts';

export default packageProject('repo', {
  include: ['test/**/*.test.ts'],
  root: new URL('..', import.meta.url).pathname,
});
