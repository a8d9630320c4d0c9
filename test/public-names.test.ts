// Every published package's public names, one committed list per package: a change to the surface
// (a name added, removed or turned from a type into a value) shows up as a diff of test/public-names/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const root = resolve(new URL('..', import.meta.url).pathname);
const packagesDir = join(root, 'packages');

interface Entry {
  readonly pkg: string;
  readonly subpath: string;
  readonly file: string;
}

function entriesOf(pkg: string): Entry[] {
  const manifest = JSON.parse(readFileSync(join(packagesDir, pkg, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>;
  };
  const entries: Entry[] = [];
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target !== 'object' || target['@ctxguard/source'] === undefined) continue;
    entries.push({ pkg, subpath, file: join(packagesDir, pkg, target['@ctxguard/source']) });
  }
  return entries;
}

const packages = readdirSync(packagesDir)
  .filter((name) => existsSync(join(packagesDir, name, 'package.json')))
  .sort();
const entries = packages.flatMap(entriesOf);

const program = ts.createProgram(
  entries.map((entry) => entry.file),
  {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['@ctxguard/source'],
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    strict: true,
    types: ['node'],
  },
);
const checker = program.getTypeChecker();

/** What kind of name an export is, as a user sees it (`type` covers interfaces and aliases). */
function kindOf(symbol: ts.Symbol): string {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const flags = target.flags;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  if (flags & ts.SymbolFlags.Variable) return 'const';
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  if (flags & ts.SymbolFlags.Module) return 'namespace';
  return 'other';
}

function exportsOf(entry: Entry): ts.Symbol[] {
  const source = program.getSourceFile(entry.file);
  if (source === undefined) throw new Error(`${entry.file} is not in the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  return moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol);
}

function publicNames(entry: Entry): string[] {
  return exportsOf(entry)
    .map((symbol) => `${symbol.getName()}: ${kindOf(symbol)}`)
    .sort();
}

describe.each(packages)('@ctxguard/%s public names', (pkg) => {
  test('match the committed list', async () => {
    const sections = entriesOf(pkg).map((entry) => {
      const names = publicNames(entry);
      return [`# @ctxguard/${pkg}${entry.subpath === '.' ? '' : entry.subpath.slice(1)}`, ...names].join(
        '\n',
      );
    });
    await expect(`${sections.join('\n\n')}\n`).toMatchFileSnapshot(
      join(root, 'test', 'public-names', `${pkg}.txt`),
    );
  });
});

/** A README's code: its fenced blocks and inline code spans, where it names what it documents. */
function codeOf(markdown: string): string {
  const fence = /^ *```[\s\S]*?^ *```/gm; // fences may be indented in a list item
  const blocks = markdown.match(fence) ?? [];
  const spans = markdown.replace(fence, '').match(/`[^`]+`/g) ?? []; // a span may wrap lines
  return [...blocks, ...spans].join('\n');
}

/** Whether `code` names `name` as a whole identifier. */
function names(code: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).test(code);
}

// A package exports what its README documents: every public name, types too, is named as code in
// the README (in a code block or a code span), not just as a word of its prose.
describe.each(packages)('@ctxguard/%s README', (pkg) => {
  test('names every public name', () => {
    const code = codeOf(readFileSync(join(packagesDir, pkg, 'README.md'), 'utf8'));
    const undocumented = entriesOf(pkg)
      .flatMap(exportsOf)
      .map((symbol) => symbol.getName())
      .filter((name) => !names(code, name));
    expect(undocumented).toEqual([]);
  });
});

/** Names a newcomer can hold: 40 per package, 150 for the meta-package that re-exports what users call. */
const NAME_LIMIT = 40;
const META_NAME_LIMIT = 150;
/** Core's message model (the message types with their schemas, parsers and readers) is not counted. */
const MESSAGE_MODEL_FILES = ['core/src/message.ts', 'core/src/message-readers.ts'];

function declaredIn(symbol: ts.Symbol): string {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return target.declarations?.[0]?.getSourceFile().fileName ?? '';
}

/** The names a package's limit counts: all of them, but for core's message model. */
function countedNames(entry: Entry): string[] {
  const source = program.getSourceFile(entry.file);
  const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) return [];
  return checker
    .getExportsOfModule(moduleSymbol)
    .filter(
      (symbol) =>
        entry.pkg !== 'core' || !MESSAGE_MODEL_FILES.some((file) => declaredIn(symbol).endsWith(file)),
    )
    .map((symbol) => symbol.getName());
}

describe.each(packages)('@ctxguard/%s surface', (pkg) => {
  test('exports no more names than its limit', () => {
    const limit = pkg === 'ctxguard' ? META_NAME_LIMIT : NAME_LIMIT;
    expect(entriesOf(pkg).flatMap(countedNames).length).toBeLessThanOrEqual(limit);
  });
});
