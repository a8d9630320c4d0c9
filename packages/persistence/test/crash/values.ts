/** Keys the crash writer cycles through: plain, escaped, Windows-reserved and hashed (long) names. */
export const crashKeys: readonly string[] = ['plain', 'a/b:c d', 'CON', `long:${'\u00e9/'.repeat(120)}`];

const sizes = [3_000, 40_000, 160_000, 420_000];

/** The value generation `gen` writes to `key`: deterministic, so the parent can tell old, new and torn apart. */
export function crashValue(key: string, gen: number): { key: string; gen: number; body: string } {
  const unit = `g${gen}-\u00e9\u65e5\u{1F600}|`;
  return { key, gen, body: unit.repeat(Math.ceil(sizes[gen % sizes.length]! / unit.length)) };
}

/** The key generation `gen` writes to. */
export function crashKeyOf(gen: number): string {
  return crashKeys[gen % crashKeys.length]!;
}
