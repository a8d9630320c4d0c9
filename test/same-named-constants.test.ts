import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';

const root = resolve(new URL('..', import.meta.url).pathname);

/**
 * The TypeScript sources: `src/` of every package, internal helper and app, no tests. (The
 * benchmarks' scorers keep their own patterns on purpose: they must not grade with the compactor's.)
 */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.ts$/.test(entry.name) && !/\.test\.ts$|\.d\.ts$/.test(entry.name)) files.push(path);
    }
  };
  for (const group of ['packages', 'internal', 'apps'])
    for (const name of readdirSync(join(root, group))) {
      try {
        walk(join(root, group, name, 'src'));
      } catch {
        // a directory without src/
      }
    }
  return files;
}

/** Module-level `const NAME = …` declarations (upper-case names): name → initializer text → where. */
function constants(): Map<string, Map<string, string[]>> {
  const found = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles()) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      if (!(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name) || !/^[A-Z][A-Z0-9_]*$/.test(declaration.name.text)) continue;
        const value = declaration.initializer?.getText(source).replace(/\s+/g, ' ') ?? '';
        const values = found.get(declaration.name.text) ?? new Map<string, string[]>();
        values.set(value, [...(values.get(value) ?? []), relative(root, file)]);
        found.set(declaration.name.text, values);
      }
    }
  }
  return found;
}

test('constants with the same name hold the same value across the packages', () => {
  const found = constants();
  expect(found.size).toBeGreaterThan(50);
  const conflicts = [...found]
    .filter(([, values]) => values.size > 1)
    .map(([name, values]) => ({ name, values: Object.fromEntries(values) }));
  expect(conflicts).toEqual([]);
});
