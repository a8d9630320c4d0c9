/**
 * A dynamic import that bundlers leave alone (its specifier is not a literal, and webpack and Vite
 * are told to skip it): a browser bundle builds without being told to leave the module out, and
 * only code that actually runs asks for it. Used for Node's own modules and optional peers.
 */
export function importUnbundled<T>(specifier: string): Promise<T> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier) as Promise<T>;
}
