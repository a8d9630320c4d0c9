/**
 * A value built on its first use, standing in for it until then. For module-level zod schemas:
 * zod builds every schema's methods when it is made, so making all of a package's schemas at
 * import was most of the time a cold start spent in ctxguard's own code. The stand-in forwards
 * every read to the built value, so it parses, composes (`z.array(lazy)`, `.extend`, `.shape`)
 * and passes zod's `instanceof` checks as the schema itself would.
 */
export function lazySchema<Value extends object>(build: () => Value): Value {
  let built: Value | undefined;
  const value = (): Value => {
    built ??= build();
    return built;
  };
  // The target is never read: every trap answers from the built value.
  return new Proxy({} as Value, {
    get: (_, key) => Reflect.get(value(), key),
    has: (_, key) => Reflect.has(value(), key),
    set: (_, key, assigned) => Reflect.set(value(), key, assigned),
    getPrototypeOf: () => Reflect.getPrototypeOf(value()),
  });
}
