import { describe, expect, it } from 'vitest';
import { ENCODINGS, type Encoding } from './encoding.js';
import { loadRankTable } from './rank-table.js';

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
    });
  }
});
