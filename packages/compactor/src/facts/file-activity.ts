import { EDITOR_TOOLS, PATH_KEYS, READ_TOOLS, SHELL_TOOLS, toolNameKey } from './tool-vocabulary.js';
import { parseTranscript, type TranscriptMessage } from './transcript.js';

/** Files a stretch of conversation read and created or changed, in first-seen order. */
export interface FileActivity {
  read: string[];
  modified: string[];
}

const WRITE_TOOLS = new Set([
  'write',
  'writefile',
  'edit',
  'editfile',
  'multiedit',
  'strreplace',
  'create',
  'createfile',
  'applypatch',
  'patch',
  'insert',
  'delete',
  'deletefile',
  'rename',
  'move',
  'notebookedit',
  'replaceinfile',
  'searchreplace',
]);

function pathsOf(input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return [];
  const record = input as Record<string, unknown>;
  const found: string[] = [];
  for (const key of PATH_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value.length > 0 && !value.includes('\n')) found.push(value);
  }
  const paths = record['paths'] ?? record['files'];
  if (Array.isArray(paths)) {
    for (const value of paths) if (typeof value === 'string' && value.length > 0) found.push(value);
  }
  return found;
}

function isPathWord(word: string): boolean {
  return (
    word.length > 0 && !word.startsWith('-') && /[A-Za-z0-9_]/.test(word) && !/[|&;<>$`(){}*?]/.test(word)
  );
}

function unquote(word: string): string {
  return /^(['"]).*\1$/.test(word) ? word.slice(1, -1) : word;
}

/** Files a simple shell command reads or writes: `cat f`, `head -n 5 f`, `sed -i … f`, `> f`, `touch f`, `rm f`, `mv a b`. */
function shellActivity(
  command: string,
  activity: FileActivity,
  add: (list: string[], path: string) => void,
): void {
  for (const segment of command.split(/&&|\|\||;|\n/)) {
    const redirect = /(?:^|[^0-9&>])>{1,2}\s*([^\s|&;>]+)/.exec(segment);
    if (redirect && isPathWord(redirect[1]!) && !/^\/dev\//.test(redirect[1]!))
      add(activity.modified, unquote(redirect[1]!));
    const words = segment.split('|')[0]!.trim().split(/\s+/).map(unquote);
    let index = words[0] === 'sudo' ? 1 : 0;
    const command = words[index++];
    if (command === undefined) continue;
    const args: string[] = [];
    for (; index < words.length; index++) {
      const word = words[index]!;
      if (/^>/.test(word)) break;
      if (word.startsWith('-')) {
        // Options that take a value: skip it too (`head -n 20 file`).
        if (/^-[nce]$/.test(word) || word === '--lines') index++;
        continue;
      }
      if (isPathWord(word)) args.push(word);
    }
    if (['cat', 'head', 'tail', 'less', 'more', 'bat', 'nl', 'wc'].includes(command)) {
      for (const arg of args) add(activity.read, arg);
    } else if (command === 'sed' && words.some((w) => /^-i/.test(w))) {
      const last = args.at(-1);
      if (last && args.length >= 2) add(activity.modified, last);
    } else if (['touch', 'rm', 'tee'].includes(command)) {
      for (const arg of args) add(activity.modified, arg);
    } else if (['mv', 'cp'].includes(command) && args.length >= 2) {
      if (command === 'mv') for (const arg of args) add(activity.modified, arg);
      else add(activity.modified, args.at(-1)!);
    }
  }
}

/** Files read and modified, from tool calls (read/write/edit tools, editor commands, simple shell commands). */
export function fileActivityOf(messages: readonly TranscriptMessage[]): FileActivity {
  const activity: FileActivity = { read: [], modified: [] };
  const seen = { read: new Set<string>(), modified: new Set<string>() };
  const add = (list: string[], path: string) => {
    const set = list === activity.read ? seen.read : seen.modified;
    if (set.has(path) || path.length > 500) return;
    set.add(path);
    list.push(path);
  };
  for (const message of messages) {
    for (const line of message.lines) {
      if (line.kind !== 'call' || line.toolName === undefined) continue;
      const tool = toolNameKey(line.toolName);
      const input = line.input;
      if (READ_TOOLS.has(tool)) for (const path of pathsOf(input)) add(activity.read, path);
      else if (WRITE_TOOLS.has(tool)) for (const path of pathsOf(input)) add(activity.modified, path);
      else if (EDITOR_TOOLS.has(tool)) {
        const command = (input as { command?: unknown } | null)?.command;
        const list = command === 'view' ? activity.read : activity.modified;
        for (const path of pathsOf(input)) add(list, path);
      } else if (SHELL_TOOLS.has(tool)) {
        const command =
          (input as { command?: unknown; cmd?: unknown } | null)?.command ??
          (input as { cmd?: unknown })?.cmd;
        if (typeof command === 'string') shellActivity(command, activity, add);
      }
    }
  }
  return activity;
}

/**
 * The files each rendering reads and modifies, remembered for as long as the rendering is kept (a
 * stored original's is); a rendering that names none is only marked.
 */
const activityOfRendering = new WeakMap<{ readonly text: string }, FileActivity>();
const withoutActivity = new WeakSet<{ readonly text: string }>();

function activityOf(rendering: { readonly text: string }): FileActivity | undefined {
  if (withoutActivity.has(rendering)) return undefined;
  let activity = activityOfRendering.get(rendering);
  if (activity === undefined) {
    activity = fileActivityOf(parseTranscript(rendering.text));
    if (activity.read.length + activity.modified.length === 0) {
      withoutActivity.add(rendering);
      return undefined;
    }
    activityOfRendering.set(rendering, activity);
  }
  return activity;
}

/**
 * {@link fileActivityOf} the transcript of the renderings joined (each one message in the
 * transcript convention), read rendering by rendering: each is parsed once for as long as it is
 * kept. Each message's files, in order, each kept where first seen, are the transcript's.
 */
export function fileActivityOfRenderings(renderings: readonly { readonly text: string }[]): FileActivity {
  const activity: FileActivity = { read: [], modified: [] };
  const seen = { read: new Set<string>(), modified: new Set<string>() };
  const addNew = (list: string[], known: Set<string>, paths: readonly string[]) => {
    for (const path of paths) {
      if (known.has(path)) continue;
      known.add(path);
      list.push(path);
    }
  };
  for (const rendering of renderings) {
    const own = activityOf(rendering);
    if (own === undefined) continue;
    addNew(activity.read, seen.read, own.read);
    addNew(activity.modified, seen.modified, own.modified);
  }
  return activity;
}
