import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/**
 * One-line vitest project for a package: resolves workspace packages to their `src`
 * through the `@ctxguard/source` export condition, so tests never need a build.
 */
export function packageProject(name: string, extra: UserWorkspaceConfig['test'] = {}): UserWorkspaceConfig {
  const conditions = ['@ctxguard/source', 'module', 'node', 'import', 'default'];
  return defineProject({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@ctxguard/source'] } },
    test: { name, environment: 'node', ...extra },
  });
}
