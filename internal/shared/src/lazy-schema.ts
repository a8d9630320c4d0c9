/**
 * A value built on its first use, standing in for it until then. For module-level zod schemas:
 * zod does real work for every schema it makes, and making every package's schemas at import
 * cost a cold start tens of milliseconds for schemas the process may never use. The stand-in forwards
 * every read to the built value, so it parses, composes (`z.array(lazy)`, `.extend`, `.shape`)
 * and passes zod's `instanceof` checks as the schema itself would. It is not the schema's own
 * object, though: a registry that keys the stand-in (`z.globalRegistry.add(lazy, …)`) does not
 * know the schema; `.meta()` and `.describe()` work, as they make a new schema.
 */
/* @__NO_SIDE_EFFECTS__ */
export function lazySchema<Value extends object>(build: () => Value): Value {
  let built: Value | undefined;
  const value = (): Value => {
    built ??= build();
    return built;
  };
  // The target is never read: every trap answers from the built value. Its properties are
  // reported configurable, as a proxy of an empty, extensible target must.
  return new Proxy({} as Value, {
    get: (_, key) => Reflect.get(value(), key),
    has: (_, key) => Reflect.has(value(), key),
    set: (_, key, assigned) => Reflect.set(value(), key, assigned),
    getPrototypeOf: () => Reflect.getPrototypeOf(value()),
    ownKeys: () => Reflect.ownKeys(value()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(value(), key);
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(value(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(value(), key),
  });
}
