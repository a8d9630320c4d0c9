/**
 * Records agent transcripts from real work: every tool result is what the tool really returned on
 * this machine (files read from a scratch copy of the repository, shell commands run in it).
 * Used by `build-corpus.ts`; not part of the published package.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { MessageInput } from '@ctxguard/core';

/** Where the scratch copy lives; fixed so that rebuilt transcripts name the same paths. */
export const WORKSPACE_DIR = '/tmp/ctxguard-corpus-workspace';

/** Longest tool output kept, as agent harnesses cap what a tool returns. */
const MAX_OUTPUT_CHARS = 30_000;

/** The workspace root of this repository. */
export function repoRoot(): string {
  let dir = dirname(new URL(import.meta.url).pathname);
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('build-corpus: cannot find the workspace root');
    dir = up;
  }
  return dir;
}

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const NPM_CONFIG_WARNING = /^npm warn Unknown user config .*\n/gm;

/** Output of a shell command: stdout and stderr interleaved as the terminal shows them. */
export interface ShellRun {
  output: string;
  exitCode: number;
}

/** Runs `command` with bash in `cwd`; never throws (a failing command is part of the story). */
export function runShell(command: string, cwd: string): ShellRun {
  const result = spawnSync('bash', ['-c', `${command} 2>&1`], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1', TERM: 'dumb' },
  });
  // The machine's npm user config draws a warning from every npx/npm call; it is not the project's output.
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
    .replace(ANSI, '')
    .replace(NPM_CONFIG_WARNING, '');
  return { output, exitCode: result.status ?? 1 };
}

/** A scratch copy of the committed repository (selected paths) with its node_modules linked in. */
export class Workspace {
  readonly dir = WORKSPACE_DIR;

  constructor(
    readonly repo: string,
    /** The commit copied, pinned so that a rebuild tells the same stories whatever HEAD is. */
    readonly commit: string,
    readonly paths: readonly string[],
  ) {}

  /** Recreates the copy from `commit` and commits it in a fresh git repository. */
  reset(): void {
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
    const archive = runShell(
      `git archive ${this.commit} ${this.paths.join(' ')} | tar -x -C ${this.dir}`,
      this.repo,
    );
    if (archive.exitCode !== 0) throw new Error(`git archive failed: ${archive.output}`);
    symlinkSync(join(this.repo, 'node_modules'), join(this.dir, 'node_modules'));
    if (existsSync(join(this.dir, 'bench')))
      symlinkSync(join(this.repo, 'bench', 'node_modules'), join(this.dir, 'bench', 'node_modules'));
    for (const path of this.paths) {
      const modules = join(this.repo, path, 'node_modules');
      if (path.startsWith('packages/') && existsSync(modules))
        cpSync(modules, join(this.dir, path, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    }
    const init = runShell(
      `git init -q && git add -A && git -c user.name=dev -c user.email=dev@example.invalid commit -q -m "import from ctxguard ${this.commit.slice(0, 7)}"`,
      this.dir,
    );
    if (init.exitCode !== 0) throw new Error(`git init failed: ${init.output}`);
  }

  read(path: string): string {
    return readFileSync(join(this.dir, path), 'utf8');
  }

  write(path: string, text: string): void {
    writeFileSync(join(this.dir, path), text);
  }

  /** Replaces exactly one occurrence of `from`; throws when it is missing (a builder bug). */
  replace(path: string, from: string, to: string): void {
    const text = this.read(path);
    const at = text.indexOf(from);
    if (at < 0) throw new Error(`build-corpus: ${JSON.stringify(from.slice(0, 60))} not found in ${path}`);
    this.write(path, text.slice(0, at) + to + text.slice(at + from.length));
  }
}

/** One tool call and what it returned. */
export interface ToolRun {
  toolName: string;
  input: Record<string, string | number | boolean>;
  output: string;
  isError?: boolean;
}

function capped(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  return `${text.slice(0, MAX_OUTPUT_CHARS)}\n... [output truncated: ${text.length - MAX_OUTPUT_CHARS} more characters]`;
}

function numbered(text: string): string {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join('\n');
}

/** A transcript being recorded: messages in the core model, tool calls run for real. */
export class TranscriptRecorder {
  readonly messages: MessageInput[] = [];
  private calls = 0;
  /** Put parallel results in one tool message (true) or one tool message per result. */
  groupResults = true;

  constructor(
    readonly id: string,
    readonly description: string,
    readonly ws: Workspace,
    system: string,
  ) {
    this.messages.push({ role: 'system', content: system });
  }

  user(text: string): void {
    this.messages.push({ role: 'user', content: text });
  }

  /** A first user message with a whole file attached as a text/plain file part. */
  userWithFile(text: string, path: string, root = this.ws.dir): void {
    const data = Buffer.from(readFileSync(join(root, path), 'utf8')).toString('base64');
    const filename = path.split('/').pop() ?? path;
    this.messages.push({
      role: 'user',
      content: [
        { type: 'text', text },
        { type: 'file', data, mediaType: 'text/plain', filename },
      ],
    });
  }

  say(text: string, reasoning?: string): void {
    this.messages.push({
      role: 'assistant',
      content: reasoning
        ? [
            { type: 'reasoning', text: reasoning },
            { type: 'text', text },
          ]
        : text,
    });
  }

  /** One assistant turn making every call in `runs` (parallel when several), then their results. */
  act(runs: ToolRun[], text?: string): ToolRun[] {
    const ids = runs.map(
      () => `call_${this.id.replace(/\W/g, '_')}_${String(++this.calls).padStart(3, '0')}`,
    );
    this.messages.push({
      role: 'assistant',
      content: [
        ...(text ? [{ type: 'text' as const, text }] : []),
        ...runs.map((run, i) => ({
          type: 'tool-call' as const,
          toolCallId: ids[i]!,
          toolName: run.toolName,
          input: run.input,
        })),
      ],
    });
    const results = runs.map((run, i) => ({
      type: 'tool-result' as const,
      toolCallId: ids[i]!,
      toolName: run.toolName,
      output: run.output,
      ...(run.isError ? { isError: true } : {}),
    }));
    if (this.groupResults || results.length === 1) this.messages.push({ role: 'tool', content: results });
    else for (const result of results) this.messages.push({ role: 'tool', content: [result] });
    return runs;
  }

  // --- tools (each returns a ToolRun; pass several to act() for parallel calls) ---

  /** `read_file` of a workspace path (or of the live repository when `root` is given). */
  readFile(path: string, root = this.ws.dir): ToolRun {
    const full = resolve(root, path);
    if (!existsSync(full))
      return {
        toolName: 'read_file',
        input: { path },
        output: `Error: ENOENT: no such file ${path}`,
        isError: true,
      };
    return { toolName: 'read_file', input: { path }, output: capped(numbered(readFileSync(full, 'utf8'))) };
  }

  /** `edit_file`: applies the replacement in the workspace for real. */
  editFile(path: string, oldString: string, newString: string): ToolRun {
    this.ws.replace(path, oldString, newString);
    const lines = this.ws.read(path).split('\n');
    const at = lines.findIndex((line) => line.includes(newString.split('\n')[0]!));
    const from = Math.max(0, at - 3);
    const excerpt = lines
      .slice(from, from + newString.split('\n').length + 6)
      .map((line, i) => `${String(from + i + 1).padStart(6)}\t${line}`)
      .join('\n');
    return {
      toolName: 'edit_file',
      input: { path, old_string: oldString, new_string: newString },
      output: `The file ${path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${excerpt}`,
    };
  }

  /** `bash` run in the workspace (or in `cwd` relative to it). */
  bash(command: string, cwd = '.'): ToolRun {
    const run = runShell(command, resolve(this.ws.dir, cwd));
    const output = capped(run.output.trimEnd());
    return {
      toolName: 'bash',
      input: cwd === '.' ? { command } : { command, cwd },
      output: run.exitCode === 0 ? output || '(no output)' : `${output}\n[exit code ${run.exitCode}]`,
      ...(run.exitCode === 0 ? {} : { isError: true }),
    };
  }

  /** `bash` run in the live repository (read-only commands: git log, ls, wc…). */
  bashInRepo(command: string): ToolRun {
    const run = runShell(command, this.ws.repo);
    const output = capped(run.output.trimEnd());
    return {
      toolName: 'bash',
      input: { command },
      output: run.exitCode === 0 ? output || '(no output)' : `${output}\n[exit code ${run.exitCode}]`,
      ...(run.exitCode === 0 ? {} : { isError: true }),
    };
  }

  /** `grep` tool: `grep -rn` in the workspace. */
  grep(pattern: string, path: string): ToolRun {
    const run = runShell(`grep -rn --include='*.ts' -e ${JSON.stringify(pattern)} ${path}`, this.ws.dir);
    return {
      toolName: 'grep',
      input: { pattern, path },
      output: capped(run.output.trimEnd() || 'No matches found'),
    };
  }

  toJSON(): { id: string; description: string; messages: MessageInput[] } {
    return { id: this.id, description: this.description, messages: this.messages };
  }
}

/** First line of `text` matching `pattern`, trimmed ('' when none). */
export function firstLine(text: string, pattern: RegExp): string {
  return (
    text
      .split('\n')
      .find((line) => pattern.test(line))
      ?.trim() ?? ''
  );
}

/** Every line of `text` matching `pattern`, trimmed. */
export function linesMatching(text: string, pattern: RegExp): string[] {
  return text
    .split('\n')
    .filter((line) => pattern.test(line))
    .map((line) => line.trim());
}
