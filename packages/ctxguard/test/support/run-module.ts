import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `code` as an ES module in a new Node process (nothing loaded yet: no encoder, no zod schema),
 * with the packages resolved to their sources; resolves with what it printed.
 */
export function runModule(code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=@ctxguard/source', '--input-type=module', '-e', code],
      { cwd: packageDir },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
}
