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
