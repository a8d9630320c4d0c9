/** A warning as core's `WarningEvent` has it. */
interface Warning {
  code: string;
  message: string;
  source: string;
  data?: Record<string, unknown>;
}

/** What {@link warnMisconfigured} needs of a hook bus (core's `HookBus` has it). */
interface WarningBus {
  listenerCount(hook: 'onWarning'): number;
  emit(hook: 'onWarning', warning: Warning): Promise<unknown>;
}

/**
 * Emits a warning that means the app is misconfigured (a misspelt model, a conversation id no
 * request was prepared with). With no `onWarning` listener it also goes to `console.warn`: the
 * mistake silently switches something off, so it must not go unseen.
 */
export function warnMisconfigured(hooks: WarningBus, warning: Warning): Promise<unknown> {
  if (hooks.listenerCount('onWarning') === 0) console.warn(`ctxguard: ${warning.message}`);
  return hooks.emit('onWarning', warning);
}
