import { defineConfig, type UserConfig } from 'tsdown';

const NON_ASCII = /[^\x00-\x7f]/;
const EVERY_NON_ASCII = new RegExp(NON_ASCII.source, 'g');

/**
 * Writes every emitted module in ASCII, escaping other characters as `\uXXXX` (as esbuild does by
 * default): Node decodes a pure-ASCII file on its fast path and V8 parses it as a one-byte string,
 * which cuts the cold start's decode and compile. Escapes keep strings, regexes and identifiers as
 * they were; a tagged template (`String.raw`) would see the escape itself, so the build refuses one.
 */
const asciiOutput = {
  name: 'ctxguard:ascii-output',
  // After rendering, so later output passes cannot turn the escapes back into characters.
  generateBundle(
    this: { parse(code: string): unknown },
    _options: unknown,
    bundle: Record<string, OutputChunk | { type: 'asset' }>,
  ) {
    for (const file of Object.values(bundle)) {
      // Declarations (.d.mts) are not run.
      if (file.type !== 'chunk' || !file.fileName.endsWith('.mjs') || !NON_ASCII.test(file.code)) continue;
      if (hasNonAsciiTaggedTemplate(this.parse(file.code)))
        throw new Error(
          `${file.fileName}: a tagged template holds a non-ASCII character; escape it in the source`,
        );
      file.code = file.code.replace(EVERY_NON_ASCII, escapeCodeUnit);
    }
  },
};

interface OutputChunk {
  type: 'chunk';
  fileName: string;
  code: string;
}

function escapeCodeUnit(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A tag sees a template's raw text, where an escape would not stand for the character it replaced. */
function hasNonAsciiTaggedTemplate(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  const { type, quasi } = node as { type?: string; quasi?: { quasis: { value: { raw: string } }[] } };
  if (type === 'TaggedTemplateExpression' && quasi?.quasis.some((part) => NON_ASCII.test(part.value.raw)))
    return true;
  return Object.values(node).some(hasNonAsciiTaggedTemplate);
}

/** Shared build for every published package: ESM, declarations, publint. */
export function packageConfig(entry: string[] = ['src/index.ts'], extra: UserConfig = {}): UserConfig {
  return defineConfig({
    entry,
    format: 'esm',
    platform: 'neutral',
    target: 'node20',
    dts: true,
    clean: true,
    // No source maps: carrying the sources, they were 40% of what our packages install, and the JS
    // is not minified, so a stack trace into it stays readable.
    sourcemap: false,
    // Doc comments stay in the .d.mts files, not in the JS a cold start parses. Not minified: Node
    // prints an uncaught error's source line, which would then be the whole module.
    outputOptions: { comments: { jsdoc: false, legal: true, annotation: true } },
    fixedExtension: true,
    plugins: [asciiOutput],
    publint: true,
    ...extra,
  }) as UserConfig;
}
