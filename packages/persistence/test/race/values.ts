/** The value a racer stores under `key`: names the writer and is large enough that writing it takes a while. */
export function raceValue(key: string, writer: string): { key: string; writer: string; body: string } {
  return { key, writer, body: `${writer}|${key}|`.repeat(2_000) };
}

/** The `index`-th key racers walk in `forever` mode; every 4th or so is long enough for a hashed file name. */
export function killKey(index: number): string {
  return `kill:${index}:${'k'.repeat((index * 37) % 180)}`;
}
