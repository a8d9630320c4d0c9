import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { describe, expect, it } from 'vitest';

const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));

/** Bundles a module that imports `names` from the package source and returns the output code. */
async function bundle(names: string[], ignorePackageSideEffects = false): Promise<string> {
  const entry = `import { ${names.join(', ')} } from ${JSON.stringify(index)};\nexport const used = [${names.join(', ')}];\n`;
  const output = await build({
    input: 'entry',
    write: false,
    // The rule overrides package.json `sideEffects: false`: then the code alone must be pure.
    treeshake: ignorePackageSideEffects
      ? { moduleSideEffects: [{ test: /[\\/]packages[\\/]models[\\/]/, sideEffects: true }] }
      : true,
    external: ['zod', '@ctxguard/core'],
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    plugins: [
      {
        name: 'virtual-entry',
        resolveId: (id) => (id === 'entry' ? id : null),
        load: (id) => (id === 'entry' ? entry : null),
      },
    ],
  });
  return output.output[0].code;
}

describe('tree-shaking', () => {
  it.each([
    ['with', false],
    ['without', true],
  ])(
    'drops the catalog data when only the reserve rule is imported (%s package sideEffects)',
    async (_, strict) => {
      const code = await bundle(['getOutputReserve', 'DEFAULT_CONTEXT_WINDOW'], strict);
      expect(code).toContain('getOutputReserve');
      expect(code).not.toContain('claude-3-5-sonnet');
      expect(code).not.toContain('gpt-4o-mini');
      expect(code).not.toContain('juspay/neurolink');
    },
  );

  it('keeps the catalog data when the catalog is imported', async () => {
    const code = await bundle(['ModelCatalog']);
    expect(code).toContain('claude-3-5-sonnet');
    expect(code).toContain('gpt-4o-mini');
  });
});
