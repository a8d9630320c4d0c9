import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { get_encoding } from 'tiktoken';
import { expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

it('imports and counts exactly where the tiktoken package (WASM) cannot be loaded, and warns when it was asked for', async () => {
  const text = 'Edge runtimes have no WASM build: 日本語のテキスト, {"json": true}, and code();';
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--conditions=@ctxguard/source',
      '--import',
      'tsx',
      '--import',
      './test/fixtures/block-tiktoken.mjs',
      './test/fixtures/count-without-tiktoken.ts',
      text,
    ],
    { cwd: packageDir },
  );
  const o200k = get_encoding('o200k_base');
  const exact = o200k.encode_ordinary(text).length;
  o200k.free();
  expect(JSON.parse(stdout)).toEqual({
    tiktokenBlocked: true,
    default: { tokens: exact, accuracy: 'exact' },
    tiktokenEngine: { tokens: exact, accuracy: 'exact' },
    tiktokenEngineEstimate: exact,
    hybridEstimate: exact,
    warnings: {
      default: [],
      // Asking for tiktoken where it cannot load says so, once, instead of switching silently.
      tiktokenEngine: [
        {
          code: 'exact_engine_unavailable',
          data: { engine: 'tiktoken', encoding: 'o200k_base', using: 'bpe' },
          message: expect.stringMatching(
            /^The tiktoken engine could not be loaded \(install the optional `tiktoken` package to use it; a bundled server must ship it in node_modules\): .*Counting o200k_base with bpe instead/,
          ),
        },
      ],
    },
  });
}, 60_000);
