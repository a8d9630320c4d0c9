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
    fixedExtension: true,
    publint: true,
    ...extra,
  }) as UserConfig;
}
