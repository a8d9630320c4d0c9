import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidInputError, InvalidOptionsError } from './errors.js';
import {
  type CompactionEvent,
  HookBus,
  type HookEvents,
  type HookName,
  hookNames,
  type WarningEvent,
} from './hooks.js';

const compaction = (id = 'c1'): CompactionEvent => ({
  kind: 'compact',
  compactionIds: [id],
  strategy: 'test',
  tokensBefore: 10,
  tokensAfter: 5,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('HookBus', () => {
  it('delivers typed events to the listeners of that hook only', async () => {
    const bus = new HookBus();
    const seen: string[] = [];
    bus.on('onCompaction', (event) => {
      seen.push(`compaction:${event.compactionIds.join()}`);
    });
    bus.on('onWarning', (event) => {
      seen.push(`warning:${event.code}`);
    });
    await bus.emit('onCompaction', compaction('x'));
    await bus.emit('onWarning', { code: 'w', message: 'm' });
    expect(seen).toEqual(['compaction:x', 'warning:w']);
  });

  it('takes a listener that returns something (an arrow that pushes), ignoring what it returns', async () => {
    const bus = new HookBus();
    const warnings: WarningEvent[] = [];
    bus.on('onWarning', (warning) => warnings.push(warning));
    await bus.emit('onWarning', { code: 'w', message: 'm' });
    expect(warnings).toEqual([{ code: 'w', message: 'm' }]);
  });

  it('awaits each listener before starting the next, in registration order', async () => {
    const bus = new HookBus();
    const log: string[] = [];
    bus.on('onCompaction', async () => {
      log.push('a:start');
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push('a:end');
    });
    bus.on('onCompaction', () => {
      log.push('b');
    });
    bus.on('onCompaction', async () => {
      await Promise.resolve();
      log.push('c');
    });
    await bus.emit('onCompaction', compaction());
    expect(log).toEqual(['a:start', 'a:end', 'b', 'c']);
  });

  it('hands every listener the event it was given, and returns it', async () => {
    const bus = new HookBus();
    const seen: unknown[] = [];
    bus.on('onContextMeasure', (event) => {
      seen.push(event);
    });
    const event: HookEvents['onContextMeasure'] = {
      provider: 'openai',
      model: 'gpt-4o',
      current: 10,
      window: 128,
      inputBudget: 100,
      percentage: 0.1,
      accuracy: 'estimate',
      messages: [{ role: 'user', content: 'a' }],
    };
    const result = await bus.emit('onContextMeasure', event);
    expect(result).toBe(event);
    expect(seen).toEqual([event]);
  });

  it('on() returns an unsubscribe that is safe to call twice', async () => {
    const bus = new HookBus();
    const calls: number[] = [];
    const off = bus.on('onCompaction', () => {
      calls.push(1);
    });
    bus.on('onCompaction', () => {
      calls.push(2);
    });
    expect(bus.listenerCount('onCompaction')).toBe(2);
    off();
    off();
    expect(bus.listenerCount('onCompaction')).toBe(1);
    await bus.emit('onCompaction', compaction());
    expect(calls).toEqual([2]);
  });

  it('registers the same function twice as two listeners that unsubscribe independently', async () => {
    const bus = new HookBus();
    let count = 0;
    const listener = () => {
      count++;
    };
    const offFirst = bus.on('onCompaction', listener);
    bus.on('onCompaction', listener);
    await bus.emit('onCompaction', compaction());
    expect(count).toBe(2);
    offFirst();
    await bus.emit('onCompaction', compaction());
    expect(count).toBe(3);
  });

  it('a throwing listener does not stop the others and is reported as an onWarning event', async () => {
    const bus = new HookBus();
    const warnings: WarningEvent[] = [];
    bus.on('onWarning', (event) => {
      warnings.push(event);
    });
    const ran: string[] = [];
    bus.on('onCompaction', () => {
      throw new Error('boom');
    });
    bus.on('onCompaction', async () => {
      await Promise.resolve();
      throw new Error('async boom');
    });
    bus.on('onCompaction', () => {
      ran.push('third');
    });
    await bus.emit('onCompaction', compaction());
    expect(ran).toEqual(['third']);
    expect(warnings.map((w) => [w.code, w.source, w.message, w.data])).toEqual([
      ['listener_failed', 'HookBus', 'A onCompaction listener threw: boom', { hook: 'onCompaction' }],
      ['listener_failed', 'HookBus', 'A onCompaction listener threw: async boom', { hook: 'onCompaction' }],
    ]);
    expect(warnings[0]?.cause).toBeInstanceOf(Error);
    expect((warnings[0]?.cause as Error | undefined)?.message).toBe('boom');
  });

  it('reports listener errors to onListenerError when given, instead of onWarning', async () => {
    const errors: [unknown, HookName][] = [];
    const bus = new HookBus({ onListenerError: (error, hook) => errors.push([error, hook]) });
    const warnings: WarningEvent[] = [];
    bus.on('onWarning', (event) => {
      warnings.push(event);
    });
    bus.on('onCompletion', () => {
      throw 'not an Error';
    });
    await bus.emit('onCompletion', {
      provider: 'anthropic',
      model: 'claude',
      messages: [],
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    expect(errors).toEqual([['not an Error', 'onCompletion']]);
    expect(warnings).toEqual([]);
  });

  it('survives a throwing onListenerError', async () => {
    const bus = new HookBus({
      onListenerError: () => {
        throw new Error('handler broke');
      },
    });
    const ran: string[] = [];
    bus.on('onCompaction', () => {
      throw new Error('first');
    });
    bus.on('onCompaction', () => {
      ran.push('second');
    });
    await expect(bus.emit('onCompaction', compaction())).resolves.toBeDefined();
    expect(ran).toEqual(['second']);
  });

  it('falls back to console.error when a warning listener throws or nobody listens for warnings', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const bus = new HookBus();
    bus.on('onCompaction', () => {
      throw new Error('unheard');
    });
    await bus.emit('onCompaction', compaction());
    expect(consoleError).toHaveBeenCalledTimes(1);
    expect(consoleError.mock.calls[0]?.[0]).toContain('onCompaction listener failed');

    bus.on('onWarning', () => {
      throw new Error('warning listener broke');
    });
    await bus.emit('onCompaction', compaction());
    // The compaction failure became a warning; the warning listener failure went to the console, once.
    expect(consoleError).toHaveBeenCalledTimes(2);
    expect(consoleError.mock.calls[1]?.[0]).toContain('onWarning listener failed');
  });

  it('once() runs a listener for one event only, even when emits overlap', async () => {
    const bus = new HookBus();
    const seen: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    bus.on('onCompaction', async () => {
      await gate;
    });
    bus.once('onCompaction', (event) => {
      seen.push(event.compactionIds[0] ?? '');
    });
    const first = bus.emit('onCompaction', compaction('first'));
    const second = bus.emit('onCompaction', compaction('second'));
    release();
    await Promise.all([first, second]);
    await bus.emit('onCompaction', compaction('third'));
    expect(seen).toEqual(['first']);
    expect(bus.listenerCount('onCompaction')).toBe(1);
  });

  it('once() can be cancelled before it fires', async () => {
    const bus = new HookBus();
    let called = false;
    const off = bus.once('onCompaction', () => {
      called = true;
    });
    off();
    await bus.emit('onCompaction', compaction());
    expect(called).toBe(false);
    expect(bus.listenerCount()).toBe(0);
  });

  it('skips listeners removed during an emit and defers listeners added during one', async () => {
    const bus = new HookBus();
    const log: string[] = [];
    let offB: () => void = () => {};
    bus.on('onCompaction', () => {
      log.push('a');
      offB();
      bus.on('onCompaction', () => {
        log.push('late');
      });
    });
    offB = bus.on('onCompaction', () => {
      log.push('b');
    });
    await bus.emit('onCompaction', compaction());
    expect(log).toEqual(['a']);
    log.length = 0;
    await bus.emit('onCompaction', compaction());
    expect(log).toEqual(['a', 'late']);
  });

  it('calls exactly the listeners registered at each emit as they come and go between emits', async () => {
    const bus = new HookBus();
    const log: string[] = [];
    const listener = (name: string) => () => {
      log.push(name);
    };
    const emitted = async () => {
      log.length = 0;
      await bus.emit('onCompaction', compaction());
      return [...log];
    };
    const offA = bus.on('onCompaction', listener('a'));
    expect(await emitted()).toEqual(['a']);
    const offB = bus.on('onCompaction', listener('b'));
    expect(await emitted()).toEqual(['a', 'b']);
    offA();
    offA();
    expect(await emitted()).toEqual(['b']);
    bus.clear('onCompaction');
    expect(await emitted()).toEqual([]);
    offB();
    bus.on('onCompaction', listener('c'));
    bus.on('onCompaction', listener('c'));
    expect(await emitted()).toEqual(['c', 'c']);
  });

  it('listenerCount exposes leaks per hook and in total; clear() removes them', async () => {
    const bus = new HookBus();
    const offs = Array.from({ length: 5 }, () => bus.on('onMessageResolve', () => {}));
    bus.on('onWarning', () => {});
    expect(bus.listenerCount('onMessageResolve')).toBe(5);
    expect(bus.listenerCount()).toBe(6);
    for (const off of offs) off();
    expect(bus.listenerCount('onMessageResolve')).toBe(0);
    expect(bus.listenerCount()).toBe(1);
    bus.on('onCompaction', () => {});
    bus.clear('onWarning');
    expect(bus.listenerCount()).toBe(1);
    bus.clear();
    expect(bus.listenerCount()).toBe(0);
    for (const hook of hookNames) expect(bus.listenerCount(hook)).toBe(0);
  });

  it('clear() during an emit stops the remaining listeners', async () => {
    const bus = new HookBus();
    const log: string[] = [];
    bus.on('onCompaction', () => {
      log.push('a');
      bus.clear();
    });
    bus.on('onCompaction', () => {
      log.push('b');
    });
    await bus.emit('onCompaction', compaction());
    expect(log).toEqual(['a']);
  });

  it('emit with no listeners returns the event untouched', async () => {
    const bus = new HookBus();
    const event = compaction();
    await expect(bus.emit('onCompaction', event)).resolves.toBe(event);
  });

  it('rejects unknown hooks, non-function listeners and bad options with named fields', async () => {
    const bus = new HookBus();
    expect(() => bus.on('onNothing' as HookName, () => {})).toThrow(InvalidInputError);
    expect(() => bus.on('onNothing' as HookName, () => {})).toThrow(/unknown hook "onNothing"/);
    expect(() => bus.on('onWarning', 'nope' as never)).toThrow(/listener must be a function/);
    await expect(bus.emit('onNothing' as HookName, {} as never)).rejects.toThrow(InvalidInputError);
    let heard = 0;
    bus.on('onWarning', () => void heard++);
    await expect(bus.emit('onWarning', 'disk full' as never)).rejects.toThrow(
      "HookBus.emit(onWarning): the event must be an object (the onWarning event's fields), received a string",
    );
    expect(heard).toBe(0);
    expect(() => new HookBus({ onListenerError: 42 as never })).toThrow(InvalidOptionsError);
    expect(() => new HookBus({ onListenerError: 42 as never })).toThrow(/onListenerError/);
  });

  it('rejects a misspelt hook in listenerCount, clear and once, so a leak test cannot pass by a typo', () => {
    const bus = new HookBus();
    bus.on('onCompaction', () => {});
    expect(() => bus.listenerCount('onCompation' as HookName)).toThrow(InvalidInputError);
    expect(() => bus.listenerCount('onCompation' as HookName)).toThrow(/unknown hook "onCompation"/);
    expect(() => bus.clear('onCompation' as HookName)).toThrow(/HookBus\.clear: unknown hook/);
    expect(bus.listenerCount('onCompaction')).toBe(1);
    expect(() => bus.once('onCompation' as HookName, () => {})).toThrow(/HookBus\.once: unknown hook/);
    expect(() => bus.once('onWarning', 'nope' as never)).toThrow(
      /HookBus\.once\(onWarning\): listener must be a function/,
    );
    expect(bus.listenerCount()).toBe(1);
  });

  it('rejects unknown option names, naming them', () => {
    expect(() => new HookBus({ onListenerErorr: () => {} } as never)).toThrow(InvalidOptionsError);
    expect(() => new HookBus({ onListenerErorr: () => {} } as never)).toThrow(/onListenerErorr/);
  });

  it('lists exactly the five hooks', () => {
    expect([...hookNames].sort()).toEqual(
      ['onCompaction', 'onCompletion', 'onContextMeasure', 'onMessageResolve', 'onWarning'].sort(),
    );
  });
});
