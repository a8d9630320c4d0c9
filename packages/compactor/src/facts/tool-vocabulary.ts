/**
 * The tool names and argument keys the compactor recognizes, one list per kind, shared by fact
 * extraction, file activity and read deduplication. Tool names compare by their letters and digits,
 * ignoring case (`read_file`, `readFile` and `ReadFile` are one name).
 */
export function toolNameKey(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

const keysOf = (names: readonly string[]): ReadonlySet<string> => new Set(names.map(toolNameKey));

/** Tools that return a file's content (not `open`: an editor's open returns none, and a later read supersedes earlier ones). */
export const READ_TOOLS = keysOf([
  'read',
  'read_file',
  'read_files',
  'read_text_file',
  'file_read',
  'fs_read',
  'view',
  'view_file',
  'open_file',
  'get_file_contents',
  'cat',
]);

/** Editor tools whose `command` says whether they view or change a file (Anthropic's text editor). */
export const EDITOR_TOOLS = keysOf([
  'str_replace_based_edit_tool',
  'str_replace_editor',
  'text_editor',
  'file_editor',
  'editor',
]);

/** Tools that run a shell command. */
export const SHELL_TOOLS = keysOf([
  'bash',
  'shell',
  'sh',
  'zsh',
  'local_shell',
  'terminal',
  'run_terminal_cmd',
  'run',
  'run_command',
  'run_shell_command',
  'exec',
  'execute',
  'execute_command',
  'cmd',
  'command',
]);

/** Arguments that name the file a tool works on. */
export const PATH_KEYS: readonly string[] = [
  'path',
  'file_path',
  'filePath',
  'file',
  'filename',
  'fileName',
  'target_file',
  'targetFile',
  'absolute_path',
  'notebook_path',
];

/** Arguments that hold a shell command, in the order they are looked for. */
export const COMMAND_KEYS: readonly string[] = [
  'command',
  'cmd',
  'script',
  'commandLine',
  'command_line',
  'shell',
];
