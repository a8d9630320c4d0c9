/** The counted fields of a message (role, name, content, OpenAI's `tool_calls`) reduced to their leaves, in walk order. */
export type MessageSnapshot = readonly unknown[];

// Registered symbols: every package bundles its own copy of this module, and a snapshot one copy
// took must read the same in another.
const ARRAY = Symbol.for('ctxguard.snapshot.array');
const OBJECT = Symbol.for('ctxguard.snapshot.object');
const MAX_SNAPSHOT_DEPTH = 64;

interface CountedFields {
  role?: unknown;
  name?: unknown;
  content?: unknown;
  /** An OpenAI Chat message's tool calls, counted beside its content. */
  tool_calls?: unknown;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The leaves of a message's counted fields, holding the same string references: comparing
 * a later message with it costs a pointer comparison per leaf when the strings are shared, even if
 * the message objects were rebuilt. `undefined` when the message cannot be walked (cycles, class
 * instances, getters that throw).
 */
export function takeMessageSnapshot(message: unknown): MessageSnapshot | undefined {
  if (message === null || typeof message !== 'object') return undefined;
  try {
    const fields = message as CountedFields;
    const role = fields.role;
    const name = fields.name;
    const content = fields.content;
    const toolCalls = fields.tool_calls;
    // Most messages: primitive role and name, string content (what matchesSnapshot checks first).
    if (typeof content === 'string' && isLeaf(role) && isLeaf(name) && toolCalls === undefined)
      return [role, name, content];
    const out: unknown[] = [];
    return visit(role, 0, out) && visit(name, 0, out) && visit(content, 0, out) && visit(toolCalls, 0, out)
      ? out
      : undefined;
  } catch {
    return undefined;
  }
}

function isLeaf(value: unknown): boolean {
  return (
    value === null || (typeof value !== 'object' && typeof value !== 'function' && typeof value !== 'symbol')
  );
}

/** Appends `value`'s leaves to `out`; false when it cannot be walked. */
function visit(value: unknown, depth: number, out: unknown[]): boolean {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function' || typeof value === 'symbol') return false;
    out.push(value);
    return true;
  }
  if (depth > MAX_SNAPSHOT_DEPTH) return false;
  if (Array.isArray(value)) {
    out.push(ARRAY, value.length);
    for (let i = 0; i < value.length; i++) if (!visit(value[i], depth + 1, out)) return false;
    return true;
  }
  if (!isPlain(value)) return false;
  const keys = Object.keys(value);
  out.push(OBJECT, keys.length);
  for (const key of keys) {
    out.push(key);
    if (!visit((value as Record<string, unknown>)[key], depth + 1, out)) return false;
  }
  return true;
}

/** True when `message`'s counted fields still equal the snapshot (edits made in place included). */
export function matchesSnapshot(message: unknown, snapshot: MessageSnapshot): boolean {
  if (message === null || typeof message !== 'object') return false;
  try {
    const fields = message as CountedFields;
    // Most messages: primitive role and name, string content.
    if (snapshot.length === 3 && typeof snapshot[2] === 'string')
      return (
        fields.role === snapshot[0] &&
        fields.name === snapshot[1] &&
        fields.content === snapshot[2] &&
        fields.tool_calls === undefined
      );
    let i = matchValue(fields.role, snapshot, 0, 0);
    if (i < 0) return false;
    i = matchValue(fields.name, snapshot, i, 0);
    if (i < 0) return false;
    i = matchValue(fields.content, snapshot, i, 0);
    if (i < 0) return false;
    i = matchValue(fields.tool_calls, snapshot, i, 0);
    return i === snapshot.length;
  } catch {
    return false;
  }
}

function matchValue(value: unknown, snapshot: MessageSnapshot, i: number, depth: number): number {
  if (value === null || typeof value !== 'object') return snapshot[i] === value ? i + 1 : -1;
  if (depth > MAX_SNAPSHOT_DEPTH) return -1;
  if (Array.isArray(value)) {
    if (snapshot[i] !== ARRAY || snapshot[i + 1] !== value.length) return -1;
    let at = i + 2;
    for (let k = 0; k < value.length && at >= 0; k++) at = matchValue(value[k], snapshot, at, depth + 1);
    return at;
  }
  // for…in allocates nothing; the key count is checked after. (An object that stopped being plain
  // still has to show the same enumerable keys and leaves to match.)
  const count = snapshot[i + 1];
  if (snapshot[i] !== OBJECT) return -1;
  let at = i + 2;
  let seen = 0;
  for (const key in value) {
    if (++seen > (count as number) || snapshot[at] !== key) return -1;
    at = matchValue((value as Record<string, unknown>)[key], snapshot, at + 1, depth + 1);
    if (at < 0) return -1;
  }
  return seen === count ? at : -1;
}
