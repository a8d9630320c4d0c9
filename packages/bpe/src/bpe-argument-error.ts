/** The brand `@ctxguard/core` recognises its errors by, across installed copies (`CtxGuardError.is`). */
const CTXGUARD_ERROR = Symbol.for('ctxguard.error');

/**
 * A bad argument to this package (an unknown encoding, a text that is not a string). `field`
 * names the argument, and `path` holds it as the other ctxguard packages' `InvalidInputError`s do;
 * `code` is always `invalid_input`. It has no dependency on `@ctxguard/core`, yet carries core's
 * brand, so `CtxGuardError.is(error, 'invalid_input')` and `instanceof CtxGuardError` hold for it.
 */
export class BpeArgumentError extends TypeError {
  override readonly name = 'BpeArgumentError';
  readonly code = 'invalid_input' as const;
  /** The argument that was wrong (`text`, `encoding`). */
  readonly field: string;
  /** `[field]`. */
  readonly path: readonly (string | number)[];
  readonly [CTXGUARD_ERROR] = true;

  constructor(message: string, field: string) {
    super(message);
    this.field = field;
    this.path = [field];
  }
}
