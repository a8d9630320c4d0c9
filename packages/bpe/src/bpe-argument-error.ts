/**
 * A bad argument to this package (an unknown encoding, a text that is not a string). `field`
 * names the argument; `code` is always `invalid_input`, as in the other ctxguard packages.
 */
export class BpeArgumentError extends TypeError {
  override readonly name = 'BpeArgumentError';
  readonly code = 'invalid_input' as const;
  /** The argument that was wrong (`text`, `encoding`). */
  readonly field: string;

  constructor(message: string, field: string) {
    super(message);
    this.field = field;
  }
}
