/**
 * Cold start, as a serverless function pays it: in fresh Node processes, `import('ctxguard')` plus
 * `createContextGuard` and its first `prepare`, against `import('ai')` (the AI SDK the middleware
 * plugs into) and `import('zod')` (loaded by both); and what `@ctxguard/ai-sdk` adds to an app
 * that imports `ai`. The processes alternate, so both sides share
 * whatever else the machine is doing; medians. Run: pnpm bench ai-sdk.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type BenchHarness, median } from '../../../bench/harness.ts';

/** Each script prints the milliseconds from its first import to the end of what it measures. */
const SCRIPTS = {
  'import("ai")': `const t = performance.now(); await import('ai'); console.log(performance.now() - t);`,
  'import("zod")': `const t = performance.now(); await import('zod'); console.log(performance.now() - t);`,
  'import("ctxguard")': `const t = performance.now(); await import('ctxguard'); console.log(performance.now() - t);`,
  'import("ai") then import("@ctxguard/ai-sdk")': `
    const t = performance.now();
    await import('ai');
    await import('@ctxguard/ai-sdk');
    console.log(performance.now() - t);`,
  'import("ctxguard") + createContextGuard + first prepare': `
    const t = performance.now();
    const { createContextGuard } = await import('ctxguard');
    const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o-mini' });
    await guard.prepare({
      conversationId: 'cold',
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
    });
    console.log(performance.now() - t);
    process.exit(0);`,
} as const;

type Subject = keyof typeof SCRIPTS;

/** Where `ai` and `ctxguard` resolve as an app's dependencies. */
const packageDir = fileURLToPath(new URL('..', import.meta.url));

function timeOnce(subject: Subject): number {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPTS[subject]], {
    cwd: packageDir,
    encoding: 'utf8',
  });
  const ms = Number(output.trim());
  if (!Number.isFinite(ms)) throw new Error(`cold start of ${subject} printed ${JSON.stringify(output)}`);
  return ms;
}

export async function run(h: BenchHarness): Promise<void> {
  const rounds = h.quick ? 5 : 25;
  const subjects = Object.keys(SCRIPTS) as Subject[];
  const times = new Map<Subject, number[]>(subjects.map((subject) => [subject, []]));
  for (let round = 0; round < rounds; round++)
    for (const subject of subjects) times.get(subject)!.push(timeOnce(subject));
  const ai = median(times.get('import("ai")')!);
  h.table(
    `cold start in a fresh process (median of ${rounds}, alternating)`,
    ['measured', 'ms', '× import("ai")'],
    subjects.map((subject) => {
      const ms = median(times.get(subject)!);
      return [subject, ms.toFixed(1), `${(ms / ai).toFixed(2)}×`];
    }),
  );
}
