import { describe, expect, it, vi } from 'vitest';
import { ENCODINGS, type Encoding } from './encoding.js';
import { buildRankTable, loadRankTable } from './rank-table.js';

async function referenceRanks(encoding: Encoding): Promise<(string | number[])[]> {
  const module =
    encoding === 'o200k_base'
      ? await import('gpt-tokenizer/bpeRanks/o200k_base')
      : await import('gpt-tokenizer/bpeRanks/cl100k_base');
  return module.default as (string | number[])[];
}

const utf8 = new TextEncoder();
const binary = (bytes: Uint8Array | number[]) => String.fromCharCode(...bytes);

describe('bundled rank tables', () => {
  for (const encoding of ENCODINGS) {
    it(`${encoding}: every token has OpenAI's rank, by bytes and by text`, async () => {
      const [table, reference] = await Promise.all([loadRankTable(encoding), referenceRanks(encoding)]);
      expect(table.size).toBe(reference.length);
      for (const [rank, token] of reference.entries()) {
        const bytes = binary(typeof token === 'string' ? utf8.encode(token) : token);
        if (table.bytesOf(rank) !== bytes || table.byBytes.get(bytes) !== rank)
          expect.fail(`${encoding} rank ${rank}: bytes differ`);
        if (typeof token === 'string' && table.byText.get(token) !== rank)
          expect.fail(`${encoding} rank ${rank}: text ${JSON.stringify(token)} not found`);
      }
      // A text key is only ever a token's exact UTF-8 decoding.
      for (const [text, rank] of table.byText) expect(binary(utf8.encode(text))).toBe(table.bytesOf(rank));
    }, 60_000); // loads two tables of up to 200k tokens and compares every rank: seconds on a busy machine
  }
});

/** `tokens` tokens of three printable bytes each, unique to their rank, packed as the tables are. */
function packedTokens(tokens: number): Uint8Array {
  const packed = new Uint8Array(tokens * 4);
  for (let rank = 0; rank < tokens; rank++) {
    packed.set(
      [3, 33 + (rank % 90), 33 + (Math.floor(rank / 90) % 90), 33 + Math.floor(rank / 8_100)],
      rank * 4,
    );
  }
  return packed;
}

describe('building a rank table', () => {
  it('leaves the event loop turns to run other work while it indexes', async () => {
    const tokens = 20_000;
    let turns = 0;
    let building = true;
    const count = () => {
      turns++;
      if (building) setImmediate(count);
    };
    setImmediate(count);
    const table = await buildRankTable('o200k_base', packedTokens(tokens));
    building = false;
    expect(table.size).toBe(tokens);
    expect(table.byText.get('!!!')).toBe(0);
    // Indexed a few thousand tokens at a time, with a turn of the event loop in between.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(tokens / 4_096));
  });

  it('finishes where the app fakes timers (its tests)', async () => {
    vi.useFakeTimers();
    try {
      const table = await buildRankTable('o200k_base', packedTokens(10_000));
      expect(table.size).toBe(10_000);
    } finally {
      vi.useRealTimers();
    }
  });
});
