import { CtxGuardError, type HistoryEntry, HookBus, InvalidInputError } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { InMemoryConversationHistory } from './conversation-history.js';
import { listCompactions, removeCondensationTags } from './effective-history.js';
import { DuplicateHistoryIdError, HistoryIndexError, UnknownCompactionError } from './errors.js';
import { assertConsistentEntries } from './validate-entries.js';

const user = (text: string) => ({ role: 'user' as const, content: text });
const assistant = (text: string) => ({ role: 'assistant' as const, content: text });
const system = (text: string) => ({ role: 'system' as const, content: text });

function sequentialIds(): () => string {
  let next = 0;
  return () => `id${++next}`;
}

function texts(history: InMemoryConversationHistory): string[] {
  return history
    .messages()
    .map((message) => (typeof message.content === 'string' ? message.content : '[parts]'));
}

function conversation(count: number, options: { withSystem?: boolean } = {}): InMemoryConversationHistory {
  const history = new InMemoryConversationHistory({ generateId: sequentialIds() });
  if (options.withSystem) history.append(system('sys'));
  for (let i = 0; i < count; i++) history.append(i % 2 === 0 ? user(`m${i}`) : assistant(`m${i}`));
  return history;
}

function snapshot(history: InMemoryConversationHistory) {
  return {
    entries: structuredClone(history.entries()),
    messages: structuredClone(history.messages()),
    length: history.length,
    compactions: structuredClone(history.compactions()),
  };
}

describe('InMemoryConversationHistory basics', () => {
  it('appends validated copies and exposes entries and the effective view', () => {
    const history = new InMemoryConversationHistory({ generateId: sequentialIds() });
    const input = { role: 'user' as const, content: 'hello', metadata: { tags: ['a'] } };
    const entry = history.append(input);
    input.metadata.tags.push('mutated-after-append');
    expect(entry).toEqual({
      id: 'id1',
      message: { role: 'user', content: 'hello', metadata: { tags: ['a'] } },
    });
    expect(Object.isFrozen(entry)).toBe(true);
    expect(Object.isFrozen(entry.message)).toBe(true);
    expect(history.length).toBe(1);
    const view = history.messages();
    view.push(assistant('not stored'));
    expect(history.messages()).toHaveLength(1);
    expect(history.entries().map((e) => e.id)).toEqual(['id1']);
  });

  it('generates unique ids by default', () => {
    const history = new InMemoryConversationHistory();
    for (let i = 0; i < 50; i++) history.append(user(`m${i}`));
    history.spliceRange(0, 10, assistant('summary'));
    const ids = history.entries().map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('appendMany appends all or nothing', () => {
    const history = conversation(2);
    const before = snapshot(history);
    expect(() => history.appendMany([user('ok'), { role: 'user', content: 42 } as never])).toThrow(
      /messages\[1\]\.content/,
    );
    expect(snapshot(history)).toEqual(before);
    history.appendMany([user('x'), assistant('y')]);
    expect(texts(history)).toEqual(['m0', 'm1', 'x', 'y']);
  });

  it('keeps metadata as a mutable record, copying the initial value', () => {
    const initial = { contextStrategy: 'layered' };
    const history = new InMemoryConversationHistory({ metadata: initial });
    history.metadata.__ctxguard = { guard: { level: 'warn' } };
    expect(initial).toEqual({ contextStrategy: 'layered' });
    expect(history.metadata).toEqual({
      contextStrategy: 'layered',
      __ctxguard: { guard: { level: 'warn' } },
    });
  });
});

describe('compaction', () => {
  it('spliceRange hides a range under a summary that lists what it hides', () => {
    const history = conversation(6);
    const id = history.spliceRange(1, 4, assistant('summary of m1..m3'));
    expect(texts(history)).toEqual(['m0', 'summary of m1..m3', 'm4', 'm5']);
    expect(history.length).toBe(4);
    expect(history.entries()).toHaveLength(7);
    const summary = history.effectiveEntries()[1]!;
    expect(summary).toMatchObject({ condenseId: id, isSummary: true, hides: ['id2', 'id3', 'id4'] });
    expect(history.hidden(id).map((e) => e.message.content)).toEqual(['m1', 'm2', 'm3']);
    expect(history.hidden(summary.id)).toEqual(history.hidden(id));
    expect(history.hidden(id).every((e) => e.condenseParent === id)).toBe(true);
    expect(history.compactions()).toEqual([
      { id, kind: 'condense', entryId: summary.id, hiddenIds: ['id2', 'id3', 'id4'], hiddenBy: null },
    ]);
  });

  it('truncate keeps the last entries and the system prompt, behind a marker', () => {
    const history = conversation(5, { withSystem: true });
    const id = history.truncate(2);
    expect(id).not.toBeNull();
    expect(texts(history)).toEqual([
      'sys',
      '[3 earlier messages were hidden to fit the context window; they are kept and can be restored.]',
      'm3',
      'm4',
    ]);
    const marker = history.effectiveEntries()[1]!;
    expect(marker).toMatchObject({ truncationId: id, isTruncationMarker: true });
    expect(marker.message.role).toBe('system');
    expect(history.hidden(id!).map((e) => e.message.content)).toEqual(['m0', 'm1', 'm2']);
    expect(history.truncate(10)).toBeNull();
  });

  it('keepSystemPrompt: false truncates the system prompt too, and a custom marker is used', () => {
    const history = new InMemoryConversationHistory({
      keepSystemPrompt: false,
      truncationMarker: ({ hiddenCount }) => user(`<<${hiddenCount} hidden>>`),
    });
    history.appendMany([system('sys'), user('a'), assistant('b')]);
    history.truncate(1);
    expect(texts(history)).toEqual(['<<2 hidden>>', 'b']);
  });

  it('dropOldest and clear hide the oldest entries; nothing to hide gives null', () => {
    const history = conversation(4, { withSystem: true });
    expect(history.dropOldest(0)).toBeNull();
    const dropped = history.dropOldest(2);
    expect(history.hidden(dropped!).map((e) => e.message.content)).toEqual(['m0', 'm1']);
    expect(texts(history).slice(2)).toEqual(['m2', 'm3']);
    const cleared = history.clear();
    expect(history.length).toBe(2);
    expect(texts(history)[0]).toBe('sys');
    expect(history.hidden(cleared!).map((e) => e.isTruncationMarker === true || e.message.content)).toEqual([
      true,
      'm2',
      'm3',
    ]);
    expect(new InMemoryConversationHistory().clear()).toBeNull();
    const onlySystem = new InMemoryConversationHistory();
    onlySystem.append(system('sys'));
    expect(onlySystem.clear()).toBeNull();
    expect(onlySystem.dropOldest(1)).toBeNull();
  });

  it('truncateRange hides an exact range under a given marker', () => {
    const history = conversation(4, { withSystem: true });
    const id = history.truncateRange(0, 2, user('[trimmed]'));
    expect(texts(history)).toEqual(['[trimmed]', 'm1', 'm2', 'm3']);
    expect(history.hidden(id).map((e) => e.message.content)).toEqual(['sys', 'm0']);
  });

  it('reports compactions to the caller (ids returned, compactions() lists them) and emits nothing itself', () => {
    const history = new InMemoryConversationHistory({ generateId: sequentialIds() });
    history.appendMany([user('a'), assistant('b'), user('c')]);
    const condensed = history.spliceRange(0, 2, assistant('s'));
    const truncated = history.dropOldest(1);
    expect(history.compactions().map((c) => ({ id: c.id, kind: c.kind, hiddenIds: c.hiddenIds }))).toEqual([
      { id: truncated, kind: 'truncate', hiddenIds: ['id5'] },
      { id: condensed, kind: 'condense', hiddenIds: ['id1', 'id2'] },
    ]);
    expect(history.rewind(truncated!).map((e) => e.id)).toEqual(['id5']);
    expect(history.compactions().map((c) => c.id)).toEqual([condensed]);
    expect(() => new InMemoryConversationHistory({ hooks: new HookBus() } as never)).toThrow(/hooks/);
  });

  it('lists the compactions of the current state through appends, compactions and rewinds', () => {
    const history = conversation(4);
    const check = () => expect(history.compactions()).toEqual(listCompactions(history.entries()));
    check();
    const first = history.spliceRange(0, 2, assistant('s1'));
    check();
    history.append(user('after'));
    history.appendMany([assistant('x'), user('y')]);
    check();
    const listed = history.compactions();
    expect(() => {
      (listed[0] as { id: string }).id = 'changed';
    }).toThrow(TypeError);
    listed.pop();
    expect(history.compactions()).toHaveLength(1);
    const second = history.dropOldest(2);
    check();
    history.rewind(first);
    check();
    history.rewind(second!);
    check();
    expect(history.compactions()).toEqual([]);
  });
});

describe('rewind', () => {
  it('undoes one compaction and restores the entries in place', () => {
    const history = conversation(6);
    const original = history.messages();
    const id = history.spliceRange(2, 5, assistant('s'));
    const restored = history.rewind(id);
    expect(restored.map((e) => e.message.content)).toEqual(['m2', 'm3', 'm4']);
    expect(history.messages()).toEqual(original);
    expect(history.compactions()).toEqual([]);
    expect(history.entries()).toHaveLength(6);
    expect(history.entries().some((e) => e.condenseParent !== undefined)).toBe(false);
  });

  it('accepts the summary entry id as well as the compaction id', () => {
    const history = conversation(3);
    history.spliceRange(0, 2, assistant('s'));
    const summary = history.effectiveEntries()[0]!;
    history.rewind(summary.id);
    expect(texts(history)).toEqual(['m0', 'm1', 'm2']);
  });

  it('rewinds nested compactions one level at a time, outer first', () => {
    const history = conversation(6);
    const original = history.entries();
    const inner = history.spliceRange(0, 3, assistant('inner'));
    const outer = history.spliceRange(0, 2, assistant('outer'));
    expect(texts(history)).toEqual(['outer', 'm4', 'm5']);
    expect(history.compactions().map((c) => [c.id, c.hiddenBy])).toEqual([
      [outer, null],
      [inner, outer],
    ]);
    history.rewind(outer);
    expect(texts(history)).toEqual(['inner', 'm3', 'm4', 'm5']);
    history.rewind(inner);
    expect(history.entries()).toEqual(original);
  });

  it('rewinding an inner compaction while an outer one hides it keeps the view and moves its entries under the outer one', () => {
    const history = conversation(6);
    const original = history.entries();
    const inner = history.spliceRange(1, 3, assistant('inner'));
    const truncated = history.truncate(2);
    const before = history.messages();
    const restored = history.rewind(inner);
    expect(history.messages()).toEqual(before);
    expect(restored.every((e) => e.truncationParent === truncated && e.condenseParent === undefined)).toBe(
      true,
    );
    expect(history.hidden(truncated!).map((e) => e.message.content)).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(history.compactions().map((c) => c.id)).toEqual([truncated]);
    history.rewind(truncated!);
    expect(history.entries()).toEqual(original);
  });
});

describe('bad input changes nothing', () => {
  function expectUnchanged(
    history: InMemoryConversationHistory,
    action: () => unknown,
    check: (e: unknown) => void,
  ) {
    const before = snapshot(history);
    let caught: unknown;
    try {
      action();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CtxGuardError);
    check(caught);
    expect(snapshot(history)).toEqual(before);
  }

  const cases: [string, (h: InMemoryConversationHistory) => unknown, string, RegExp][] = [
    ['from out of range', (h) => h.spliceRange(-1, 2, user('s')), 'history_invalid_index', /from -1/],
    [
      'to out of range',
      (h) => h.spliceRange(0, 99, user('s')),
      'history_invalid_index',
      /to 99.*within 0\.\.5/,
    ],
    ['non-integer', (h) => h.spliceRange(0.5, 2, user('s')), 'history_invalid_index', /from 0\.5.*integer/],
    ['NaN', (h) => h.truncateRange(0, Number.NaN), 'history_invalid_index', /to NaN/],
    ['string index', (h) => h.spliceRange('1' as never, 2, user('s')), 'history_invalid_index', /integer/],
    ['reversed', (h) => h.spliceRange(3, 1, user('s')), 'history_invalid_index', /less than to/],
    ['empty range', (h) => h.spliceRange(2, 2, user('s')), 'history_invalid_index', /empty/],
    ['negative keepLast', (h) => h.truncate(-1), 'history_invalid_index', /keepLast -1/],
    ['fractional keepLast', (h) => h.truncate(1.5), 'history_invalid_index', /keepLast/],
    ['dropOldest beyond length', (h) => h.dropOldest(6), 'history_invalid_index', /n 6.*at most 5/],
    ['unknown rewind id', (h) => h.rewind('nope'), 'history_unknown_compaction', /"nope"/],
    ['rewind of an ordinary entry', (h) => h.rewind('id1'), 'history_unknown_compaction', /"id1"/],
    ['empty rewind id', (h) => h.rewind(''), 'history_unknown_compaction', /""/],
    ['hidden of unknown id', (h) => h.hidden('nope'), 'history_unknown_compaction', /"nope"/],
    [
      'invalid message',
      (h) => h.append({ role: 'robot', content: 'x' } as never),
      'invalid_input',
      /message\.role/,
    ],
    [
      'invalid replacement',
      (h) => h.spliceRange(0, 2, { role: 'tool', content: [] } as never),
      'invalid_input',
      /replacement\.content/,
    ],
    [
      'invalid marker',
      (h) => h.truncateRange(0, 2, { role: 'user' } as never),
      'invalid_input',
      /marker\.content/,
    ],
  ];

  for (const [name, action, code, message] of cases) {
    it(name, () => {
      const history = conversation(5);
      history.spliceRange(3, 5, assistant('earlier summary'));
      history.append(user('tail'));
      expectUnchanged(
        history,
        () => action(history),
        (error) => {
          expect((error as CtxGuardError).code).toBe(code);
          expect((error as Error).message).toMatch(message);
        },
      );
    });
  }

  it('a throwing or invalid marker factory changes nothing', () => {
    const throwing = new InMemoryConversationHistory({
      truncationMarker: () => {
        throw new Error('boom');
      },
    });
    throwing.appendMany([user('a'), user('b')]);
    expectUnchanged(
      throwing,
      () => throwing.truncate(1),
      (error) => expect((error as Error).message).toMatch(/boom/),
    );
    const invalid = new InMemoryConversationHistory({
      truncationMarker: () => ({ role: 'nobody' }) as never,
    });
    invalid.appendMany([user('a'), user('b')]);
    expectUnchanged(
      invalid,
      () => invalid.dropOldest(1),
      (error) => expect(error).toBeInstanceOf(InvalidInputError),
    );
  });

  it('an id generator that repeats itself is refused without changing anything', () => {
    const history = new InMemoryConversationHistory({ generateId: () => 'same' });
    history.append(user('a'));
    expectUnchanged(
      history,
      () => history.append(user('b')),
      (error) => expect(error).toBeInstanceOf(DuplicateHistoryIdError),
    );
    let n = 0;
    const pairs = new InMemoryConversationHistory({ generateId: () => (n++ < 2 ? `x${n}` : 'x2') });
    pairs.appendMany([user('a')]);
    pairs.append(user('b'));
    expectUnchanged(
      pairs,
      () => pairs.spliceRange(0, 2, user('s')),
      (error) => expect((error as CtxGuardError).code).toBe('history_duplicate_id'),
    );
  });

  it('rejects invalid options naming the option', () => {
    expect(() => new InMemoryConversationHistory({ keepSystemPrompt: 'yes' } as never)).toThrow(
      /keepSystemPrompt/,
    );
    expect(() => new InMemoryConversationHistory({ generateId: 'uuid' } as never)).toThrow(/generateId/);
    expect(() => new InMemoryConversationHistory({ hooks: {} } as never)).toThrow(/hooks/);
    expect(() => new InMemoryConversationHistory({ colour: 'red' } as never)).toThrow(/colour/);
  });

  it('errors are typed', () => {
    const history = conversation(2);
    expect(() => history.spliceRange(0, 9, user('x'))).toThrow(HistoryIndexError);
    expect(() => history.rewind('x')).toThrow(UnknownCompactionError);
  });
});

describe('fromEntries', () => {
  it('rebuilds an equal history from stored entries', () => {
    const history = conversation(6);
    history.spliceRange(1, 3, assistant('s'));
    history.truncate(2);
    const copy = InMemoryConversationHistory.fromEntries(structuredClone(history.entries()), {
      generateId: sequentialIds(),
    });
    expect(copy.entries()).toEqual(history.entries());
    expect(copy.messages()).toEqual(history.messages());
    expect(copy.compactions()).toEqual(history.compactions());
  });

  it('does not reuse a stored id for new entries', () => {
    const copy = InMemoryConversationHistory.fromEntries([{ id: 'id1', message: user('a') }], {
      generateId: sequentialIds(),
    });
    expect(() => copy.append(user('b'))).toThrow(DuplicateHistoryIdError);
  });

  it('rejects inconsistent entries naming the field', () => {
    const good: HistoryEntry[] = [
      { id: 's', message: user('sum'), condenseId: 'c', isSummary: true, hides: ['a'] },
      { id: 'a', message: user('a'), condenseParent: 'c' },
    ];
    expect(() => InMemoryConversationHistory.fromEntries(good)).not.toThrow();
    const bad: [unknown, RegExp][] = [
      [[good[0], { ...good[1], condenseParent: 'zzz' }], /entries\[1\]\.condenseParent: no summary/],
      [[good[1], good[0]], /must be stored before/],
      [[{ ...good[0], hides: ['a', 'b'] }, good[1]], /entries\[0\]\.hides/],
      [[good[0], good[1], { id: 'a', message: user('dup') }], /entries\[2\]\.id: duplicate id "a"/],
      [[{ id: 'x', message: { role: 'user' } }], /entries\[0\]\.message\.content/],
      [[{ ...good[0], isSummary: undefined }, good[1]], /entries\[0\]\.condenseId/],
      [[good[0], { ...good[1], truncationParent: 'c' }], /one compaction only/],
      ['nope', /entries/],
    ];
    for (const [entries, message] of bad) {
      expect(() => InMemoryConversationHistory.fromEntries(entries)).toThrow(message);
    }
  });
});

describe('replaceOriginal', () => {
  it('puts a message in place of a shown original, keeping every compaction after it', () => {
    const history = conversation(6, { withSystem: true });
    const summary = history.spliceRange(2, 5, assistant('summary of m1..m3'));
    const compactions = structuredClone(history.compactions());
    const entry = history.replaceOriginal('id1', system('sys, edited'));
    expect(entry).toMatchObject({ id: 'id1', message: system('sys, edited') });
    expect(Object.isFrozen(entry.message)).toBe(true);
    expect(texts(history)).toEqual(['sys, edited', 'm0', 'summary of m1..m3', 'm4', 'm5']);
    expect(history.compactions()).toEqual(compactions);
    history.rewind(summary);
    expect(texts(history)).toEqual(['sys, edited', 'm0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    assertConsistentEntries(history.entries());
  });

  it('refuses what it cannot replace, naming the field; nothing changes', () => {
    const history = conversation(6, { withSystem: true });
    const summary = history.spliceRange(2, 5, assistant('summary'));
    const summaryEntry = history.effectiveEntries()[2]!.id;
    const before = snapshot(history);
    const refused: [string, unknown, RegExp][] = [
      ['id3', user('hidden by the summary'), /^Invalid id "id3": not an original message shown/],
      [summaryEntry, user('a summary'), /not an original message shown/],
      ['nope', user('unknown'), /not an original message shown/],
      ['id1', { role: 'system', content: 42 }, /^message\.content: Invalid input/],
    ];
    for (const [id, message, error] of refused) {
      expect(() => history.replaceOriginal(id, message as never)).toThrow(error);
      expect(() => history.replaceOriginal(id, message as never)).toThrow(InvalidInputError);
      expect(snapshot(history)).toEqual(before);
    }
    expect(history.compactions().map((record) => record.id)).toEqual([summary]);
  });
});

describe('replaceState', () => {
  it('validates entries and metadata like fromEntries, naming the field; bad input changes nothing', () => {
    const history = conversation(2, { withSystem: true });
    history.metadata.kept = true;
    const before = snapshot(history);
    const bad: [unknown, unknown, RegExp][] = [
      [[{ id: 'a', message: null }], {}, /entries\[0\]\.message: /],
      [
        [{ id: 'a', message: user('a'), condenseParent: 'nope' }],
        {},
        /entries\[0\]\.condenseParent: no summary/,
      ],
      ['nope', {}, /^entries/],
      [history.entries(), 'abc', /^metadata/],
      [history.entries(), ['a'], /^metadata/],
    ];
    for (const [entries, metadata, message] of bad) {
      expect(() => history.replaceState(entries as never, metadata as never)).toThrow(message);
      expect(() => history.replaceState(entries as never, metadata as never)).toThrow(InvalidInputError);
      expect(snapshot(history)).toEqual(before);
      expect(history.metadata).toEqual({ kept: true });
    }
    expect(history.dropOldest(1)).not.toBeNull();
  });

  it('copies and freezes the messages it is given, so the caller cannot change stored content', () => {
    const history = new InMemoryConversationHistory();
    const message = { role: 'user' as const, content: 'original' };
    history.replaceState([{ id: 'x', message }], {});
    message.content = 'changed by the caller';
    expect(texts(history)).toEqual(['original']);
    expect(Object.isFrozen(history.messages()[0])).toBe(true);
    expect(Object.isFrozen(history.entries()[0])).toBe(true);
  });

  it('stores its parse of a message: no object shared with the caller, whose objects stay unfrozen', () => {
    const objects = (value: unknown, into = new Set<object>()): Set<object> => {
      if (typeof value === 'object' && value !== null) {
        into.add(value);
        for (const child of Object.values(value)) objects(child, into);
      }
      return into;
    };
    const history = new InMemoryConversationHistory();
    const message = {
      role: 'assistant' as const,
      content: [
        { type: 'text' as const, text: 'reading', providerOptions: { openai: { tags: ['a', { deep: 1 }] } } },
        {
          type: 'tool-call' as const,
          toolCallId: 'c1',
          toolName: 'read',
          input: { path: 'a.ts', lines: [1, 2] },
        },
      ],
    };
    const given = objects(message);
    const stored = history.append(message).message;
    expect(stored).toEqual(message);
    const kept = objects(stored);
    expect(kept.size).toBe(given.size);
    for (const object of kept) {
      expect(given.has(object)).toBe(false);
      expect(Object.isFrozen(object)).toBe(true);
    }
    for (const object of given) expect(Object.isFrozen(object)).toBe(false);
  });

  it('keeps a top-level __proto__ metadata key as an ordinary key, leaving the prototype alone', () => {
    const history = new InMemoryConversationHistory();
    history.replaceState([], JSON.parse('{"__proto__":{"a":1},"k":1}'));
    expect(Object.getPrototypeOf(history.metadata)).toBe(Object.prototype);
    expect(Object.keys(history.metadata)).toEqual(['__proto__', 'k']);
    expect(JSON.stringify(history.metadata)).toBe('{"__proto__":{"a":1},"k":1}');
    const created = new InMemoryConversationHistory({ metadata: JSON.parse('{"__proto__":{"b":2}}') });
    expect(JSON.stringify(created.metadata)).toBe('{"__proto__":{"b":2}}');
    expect(Object.getPrototypeOf(created.metadata)).toBe(Object.prototype);
  });
});

describe('spliceRange with several replacement messages', () => {
  const group = (...names: string[]) => names.map((name) => assistant(name));

  it('hides the range under one compaction: a summary and its members', () => {
    const history = conversation(6);
    const original = snapshot(history);
    const id = history.spliceRange(1, 4, group('r1', 'r2', 'r3'));
    expect(texts(history)).toEqual(['m0', 'r1', 'r2', 'r3', 'm4', 'm5']);
    const view = history.effectiveEntries();
    expect(view[1]).toMatchObject({ condenseId: id, isSummary: true, hides: ['id2', 'id3', 'id4'] });
    expect(view[2]!.condenseMember).toBe(id);
    expect(view[3]!.condenseMember).toBe(id);
    expect(view[2]!.isSummary).toBeUndefined();
    expect(history.compactions()).toEqual([
      {
        id,
        kind: 'condense',
        entryId: view[1]!.id,
        hiddenIds: ['id2', 'id3', 'id4'],
        hiddenBy: null,
        memberIds: [view[2]!.id, view[3]!.id],
      },
    ]);
    expect(history.hidden(id).map((entry) => entry.id)).toEqual(['id2', 'id3', 'id4']);
    const restored = history.rewind(id);
    expect(restored.map((entry) => entry.id)).toEqual(['id2', 'id3', 'id4']);
    expect(snapshot(history)).toEqual(original);
  });

  it('a one-element list is the same as a single message', () => {
    const a = conversation(4);
    const b = conversation(4);
    a.spliceRange(1, 3, assistant('s'));
    b.spliceRange(1, 3, [assistant('s')]);
    expect(b.entries()).toEqual(a.entries());
  });

  it('widens a later range covering part of a group to the whole group; any rewind order restores it', () => {
    for (const order of ['inner-first', 'outer-first'] as const) {
      const history = conversation(8);
      const original = snapshot(history);
      const inner = history.spliceRange(2, 5, group('a', 'b', 'c'));
      expect(texts(history)).toEqual(['m0', 'm1', 'a', 'b', 'c', 'm5', 'm6', 'm7']);
      // [3, 6) starts inside the group (at its member "b"): the whole group is hidden.
      const outer = history.spliceRange(3, 6, group('x', 'y'));
      expect(texts(history)).toEqual(['m0', 'm1', 'x', 'y', 'm6', 'm7']);
      expect(history.hidden(outer).map((entry) => String(entry.message.content))).toEqual([
        'a',
        'b',
        'c',
        'm5',
      ]);
      assertConsistentEntries(history.entries());
      if (order === 'inner-first') {
        history.rewind(inner);
        expect(texts(history)).toEqual(['m0', 'm1', 'x', 'y', 'm6', 'm7']);
        expect(history.hidden(outer).map((entry) => entry.id)).toEqual(['id3', 'id4', 'id5', 'id6']);
        history.rewind(outer);
      } else {
        history.rewind(outer);
        expect(texts(history)).toEqual(['m0', 'm1', 'a', 'b', 'c', 'm5', 'm6', 'm7']);
        history.rewind(inner);
      }
      expect(snapshot(history)).toEqual(original);
    }
  });

  it('widens a range ending inside a group, and truncation too', () => {
    const history = conversation(6);
    const original = snapshot(history);
    const inner = history.spliceRange(3, 5, group('a', 'b', 'c'));
    expect(texts(history)).toEqual(['m0', 'm1', 'm2', 'a', 'b', 'c', 'm5']);
    const marker = history.truncateRange(1, 4);
    // [1, 4) ends at the summary "a": its members "b" and "c" are hidden with it.
    expect(texts(history)).toEqual(['m0', expect.stringContaining('5 earlier messages'), 'm5']);
    expect(history.hidden(marker).map((entry) => entry.id)).toEqual(
      ['id2', 'id3', history.compactions().find((c) => c.id === inner)!.entryId].concat(
        history.compactions().find((c) => c.id === inner)!.memberIds ?? [],
      ),
    );
    history.rewind(inner);
    history.rewind(marker);
    expect(snapshot(history)).toEqual(original);
  });

  it('rejects an empty list or a bad message naming it, changing nothing', () => {
    const history = conversation(4);
    const before = snapshot(history);
    expect(() => history.spliceRange(0, 2, [])).toThrow(InvalidInputError);
    expect(() => history.spliceRange(0, 2, [])).toThrow(/replacement: must hold at least one message/);
    expect(() => history.spliceRange(0, 2, [assistant('ok'), { role: 'user' } as never])).toThrow(
      /replacement\[1\]/,
    );
    expect(snapshot(history)).toEqual(before);
  });

  it('removeCondensationTags drops the members with the summary', () => {
    const history = conversation(5);
    const id = history.spliceRange(1, 3, group('a', 'b'));
    const undone = removeCondensationTags(history.entries(), id);
    expect(undone).toEqual(conversation(5).entries());
  });
});

describe('fromEntries with multi-message groups', () => {
  const summary: HistoryEntry = {
    id: 's',
    message: assistant('sum'),
    condenseId: 'c',
    isSummary: true,
    hides: ['a'],
  };
  const member: HistoryEntry = { id: 'm', message: assistant('more'), condenseMember: 'c' };
  const hidden: HistoryEntry = { id: 'a', message: user('a'), condenseParent: 'c' };

  it('loads a group and rewinds it', () => {
    const history = InMemoryConversationHistory.fromEntries([summary, member, hidden]);
    expect(texts(history)).toEqual(['sum', 'more']);
    expect(history.compactions()[0]!.memberIds).toEqual(['m']);
    history.rewind('c');
    expect(history.entries()).toEqual([{ id: 'a', message: user('a') }]);
  });

  it('rejects members that are misplaced, orphaned or hidden apart from their summary, naming the field', () => {
    const other: HistoryEntry = { id: 'o', message: user('o') };
    const bad: [unknown, RegExp][] = [
      [[summary, hidden, member], /entries\[2\]\.condenseMember: a member must be stored right after/],
      [[summary, member, hidden, { ...member, id: 'm2' }], /entries\[3\]\.condenseMember/],
      [
        [other, { ...member, condenseMember: 'zzz' }],
        /entries\[1\]\.condenseMember: no summary with id "zzz"/,
      ],
      [
        [summary, { ...member, condenseParent: 'c' }, hidden],
        /entries\[1\]\.condenseParent: a member must be hidden/,
      ],
      [[summary, { ...member, isSummary: true }, hidden], /entries\[1\]\./],
      [[summary, { ...member, condenseMember: '' }, hidden], /condenseMember/],
    ];
    for (const [entries, message] of bad) {
      expect(() => InMemoryConversationHistory.fromEntries(entries)).toThrow(message);
    }
  });
});
