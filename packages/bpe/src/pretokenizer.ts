import { checkEncoding, checkText, type Encoding } from './encoding.js';

// tiktoken's patterns use Rust regex semantics: `\s` is Unicode White_Space (includes U+0085,
// excludes U+FEFF, unlike JavaScript's `\s`), and `(?i:'s)` also matches the long s `ſ`.
const WS = String.raw`\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`;
const S = `[${WS}]`;
const NOT_S = `[^${WS}]`;
const CONTRACTION = "'(?:[sSſ]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])";
const UPPER = String.raw`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`;
const LOWER = String.raw`[\p{Ll}\p{Lm}\p{Lo}\p{M}]`;
const LEAD = String.raw`[^\r\n\p{L}\p{N}]`;
const PUNCT = String.raw`[^${WS}\p{L}\p{N}]`;

const PRETOKENIZER_PATTERNS: Record<Encoding, string> = {
  o200k_base: [
    `${LEAD}?${UPPER}*${LOWER}+(?:${CONTRACTION})?`,
    `${LEAD}?${UPPER}+${LOWER}*(?:${CONTRACTION})?`,
    String.raw`\p{N}{1,3}`,
    ` ?${PUNCT}+[\\r\\n/]*`,
    `${S}*[\\r\\n]+`,
    `${S}+(?!${NOT_S})`,
    `${S}+`,
  ].join('|'),
  cl100k_base: [
    CONTRACTION,
    String.raw`${LEAD}?\p{L}+`,
    String.raw`\p{N}{1,3}`,
    ` ?${PUNCT}+[\\r\\n]*`,
    `${S}*[\\r\\n]+`,
    `${S}+(?!${NOT_S})`,
    `${S}+`,
  ].join('|'),
};

/** A new global regex that splits text into the pieces tiktoken merges independently. */
export function pieceRegex(encoding: Encoding): RegExp {
  return new RegExp(PRETOKENIZER_PATTERNS[checkEncoding(encoding)], 'gu');
}

/** Splits text into pre-tokenizer pieces (exactly as tiktoken does). */
export function splitPieces(text: string, encoding: Encoding): string[] {
  checkText(text);
  const re = pieceRegex(encoding);
  const pieces: string[] = [];
  for (let m = re.exec(text); m !== null; m = re.exec(text)) pieces.push(m[0]);
  return pieces;
}
