import { describe, expect, it } from 'vitest';
import { HookBus } from '../src/index.js';

describe('README examples', () => {
  it('quick start emits a warning to a listener it then removes', async () => {
    const hooks = new HookBus();
    const seen: string[] = [];
    const off = hooks.on('onWarning', (w) => {
      seen.push(w.message);
    });
    await hooks.emit('onWarning', { code: 'demo', message: 'hello' });
    off();
    expect(seen).toEqual(['hello']);
    expect(hooks.listenerCount()).toBe(0);
  });
});
