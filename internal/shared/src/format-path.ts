/** Renders a path as `messages[3].content[0].toolCallId`. */
export function formatPath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? '(root)' : out;
}
