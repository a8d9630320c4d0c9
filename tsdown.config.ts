import { defineConfig, type UserConfig } from 'tsdown';

/** Shared build for every published package: ESM, declarations, publint. */
export function packageConfig(entry: string[] = ['src/index.ts'], extra: UserConfig = {}): UserConfig {
  return defineConfig({
    entry,
    format: 'esm',
    platform: 'neutral',
    target: 'node20',
    dts: true,
    clean: true,
    sourcemap: true,
    // Doc comments stay in the .d.mts files, not in the JS a cold start parses. Not minified: Node
    // prints an uncaught error's source line, which would then be the whole module.
    outputOptions: { comments: { jsdoc: false, legal: true, annotation: true } },
    fixedExtension: true,
    publint: true,
    ...extra,
  }) as UserConfig;
}
