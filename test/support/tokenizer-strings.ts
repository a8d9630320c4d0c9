import fc from 'fast-check';

/**
 * Strings that stress a BPE tokenizer: ASCII punctuation and digits, CJK, accents and combining
 * marks, emoji with modifiers, odd whitespace (U+0085, U+FEFF, NBSP, ideographic space), English
 * contractions, arbitrary graphemes and binary. Shared by the exactness property tests.
 */
export function tokenizerStrings(): fc.Arbitrary<string> {
  const alphabet = fc.constantFrom(
    ...'abcdefghij ABC XYZ 0123456789 \n\t\r.,;:!?\'"()[]{}<>/\\-_=+*&^%$#@~`|'.split(''),
    '日',
    '本',
    '語',
    '中',
    '文',
    'の',
    'テ',
    '한',
    '글',
    'é',
    'ß',
    'ñ',
    'Ω',
    'ж',
    '😀',
    '👍🏽',
    '\u0085',
    '\ufeff',
    '\u00a0',
    '\u3000',
    "'s",
    "'LL",
    '\u0301',
  );
  return fc.oneof(
    fc.string({ unit: alphabet, maxLength: 300 }),
    fc.string({ unit: 'grapheme', maxLength: 120 }),
    fc.string({ unit: 'binary', maxLength: 120 }),
    fc.string({ maxLength: 200 }),
  );
}

/** Hand-picked edge cases: contractions, CJK, emoji sequences, odd whitespace, lone surrogates, special-token text. */
export const tokenizerEdgeCases: readonly string[] = [
  '',
  'Hello world',
  "it's I'M we'LL they'Re 'ſ 'S",
  '日本語のテキストです。東京は日本の首都です。这是中文文本。한국어 텍스트',
  'emoji 😀🎉👩‍👩‍👧‍👦 flags 🇯🇵🇫🇷 skin 👍🏽',
  'tabs\tand\r\nwindows lines\n\n\n   trailing   ',
  'NEL\u0085here BOM\ufeffthere NBSP\u00a0and\u2028LS\u3000ideographic space',
  'lone \ud800 high and \udc00 low surrogates',
  'NUL\u0000byte and <|endoftext|> and <|im_start|> as plain text',
  '1234567890 3.14159 1e10 0xDEADBEEF',
  'const x = (a, b) => a ?? b; // comment\n\tif (x) { return [1,2,3]; }',
  '{"key": "value", "nested": {"array": [1, 2, 3], "flag": true}}',
  'ÀÉÎÕÜ àéîõü ÇçÑñ ĀāĒēĪī Ελληνικά Русский عربي עברית हिन्दी ไทย',
];

/** Long unbroken runs a BPE merges slowly: 3,000 ideographs, kana, one letter, spaces, `=`, base64. */
export function longUnbrokenRuns(): string[] {
  const cjk = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join(
    '',
  );
  const kana = 'あいうえおかきくけこさしすせそ'.repeat(150);
  const base64 = Array.from(
    { length: 3000 },
    (_, i) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[(i * 37 + (i >> 3)) % 64],
  ).join('');
  return [cjk, kana, 'a'.repeat(5000), ' '.repeat(4000), `${'='.repeat(3000)}x`, base64];
}
