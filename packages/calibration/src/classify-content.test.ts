import { InvalidInputError } from '@ctxguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyContent, contentProfile, segmentContent } from './classify-content.js';
import type { ContentClass } from './content-class.js';

const PROSE = `Persistence is a small key-value interface. Every store deep-copies values on the way in
and out, so callers can never mutate what is stored through a reference they kept. The file
store writes atomically: it writes a temporary file and renames it over the old one.`;
const CODE = `export function clamp(value: number, min: number, max: number): number {
  if (value < min) return min;
  return value > max ? max : value;
}
const limits = new Map<string, number>();
for (const [key, limit] of limits) {
  console.log(key, clamp(limit, 0, 100));
}`;
const JSON_TEXT = JSON.stringify(
  {
    name: '@ctxguard/calibration',
    version: '0.1.0',
    dependencies: { zod: '^4' },
    files: ['dist', 'src'],
    private: false,
  },
  null,
  2,
);
const MARKUP = `<table>
  <tr>
    <td align="center" valign="top" width="14.28%"><a href="https://example.org/"><img src="a.png" width="100px;" alt="A"/></a></td>
  </tr>
</table>`;
const CJK = `上下文窗口是模型一次能读取的最大令牌数。
超过这个限制时，请求会被拒绝，所以需要在发送之前估算令牌数量。
日本語の文章も同じように扱われます。한국어 문장도 마찬가지입니다.`;

describe('classifyContent', () => {
  it.each([
    ['prose', PROSE],
    ['code', CODE],
    ['json', JSON_TEXT],
    ['cjk', CJK],
    ['markup', MARKUP],
  ] as [ContentClass, string][])('recognises %s', (cls, text) => {
    expect(classifyContent(text)).toBe(cls);
  });

  it('recognises minified JSON and minified code', () => {
    expect(classifyContent(JSON.stringify({ a: [1, 2, 3], b: { c: 'd' }, e: null }))).toBe('json');
    expect(
      classifyContent(
        'function a(b){return b.map(function(c){return c*2}).filter(Boolean)};var x=a([1,2,3]);',
      ),
    ).toBe('code');
  });

  it('treats markdown fences as code', () => {
    const md = `Install it:\n\n\`\`\`\nnpm install something\nnpx something init\nnpx something run\n\`\`\`\n`;
    const profile = contentProfile(md);
    expect(profile.code).toBeGreaterThan(40);
  });

  it('samples long texts and still finds the dominant class', () => {
    const big = `${CODE}\n`.repeat(400);
    expect(big.length).toBeGreaterThan(50_000);
    expect(classifyContent(big)).toBe('code');
    const mostlyCjk = `${PROSE}\n${CJK.repeat(60)}`;
    expect(classifyContent(mostlyCjk)).toBe('cjk');
  });

  it('returns prose for empty and odd input without throwing', () => {
    expect(classifyContent('')).toBe('prose');
    expect(classifyContent(undefined as never)).toBe('prose');
    expect(classifyContent(42 as never)).toBe('prose');
    expect(['prose', 'code', 'json', 'cjk', 'markup']).toContain(
      classifyContent('\u0000\ud800\udc00\ud800 \n\n\n'),
    );
  });
});

// Line fragments that reach every branch of the line classifier (fences, JSON runs, markup,
// comments, CJK, minified lines), joined by line breaks; plus arbitrary code units.
const fragment = fc.constantFrom(
  '\n',
  '\n',
  '\r\n',
  ' ',
  '```',
  '```ts',
  '{',
  '}',
  '[',
  '],',
  '"key": 1,',
  '"v",',
  '<div class="a">',
  '</td>',
  '<!--',
  'x="y"',
  '// note',
  '/* c */',
  '# title',
  '> quote',
  'const a = f(b);',
  'return x;',
  'if (a) {',
  'Plain words here.',
  '上下文窗口',
  'カタカナ',
  '한국어',
  'a'.repeat(90),
  '\u0000',
  '\ud800',
  '\udc00',
);
const anyText = fc.oneof(
  fc.array(fragment, { maxLength: 60 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 120 }),
);

describe('segmentContent', () => {
  it('splits mixed text into runs that cover every character once, in order', () => {
    const mixed = `${PROSE}\n\n${CODE}\n\n${JSON_TEXT}\n\n${CJK}\n${MARKUP}\n`;
    const runs: [ContentClass, number, number][] = [];
    segmentContent(mixed, (cls, start, end) => runs.push([cls, start, end]));
    expect(runs[0]?.[1]).toBe(0);
    expect(runs.at(-1)?.[2]).toBe(mixed.length);
    for (let i = 1; i < runs.length; i++) expect(runs[i]?.[1]).toBe(runs[i - 1]?.[2]);
    expect(runs.map((r) => r[0])).toEqual(['prose', 'code', 'json', 'cjk', 'markup']);
    const profile = contentProfile(mixed);
    expect(profile.prose + profile.code + profile.json + profile.cjk + profile.markup).toBe(mixed.length);
  });

  it('covers any string exactly (property)', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        let covered = 0;
        let last = 0;
        segmentContent(text, (_cls, start, end) => {
          expect(start).toBe(last);
          expect(end).toBeGreaterThanOrEqual(start);
          covered += end - start;
          last = end;
        });
        expect(covered).toBe(text.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('CJK lines', () => {
  it('counts Hangul jamo of every block as CJK', () => {
    // Old Korean and archaic jamo: Jamo (U+1100), Extended-A (U+A960), Extended-B (U+D7B0),
    // compatibility (U+3131) and half-width (U+FFA1) jamo.
    const jamo = '\u1100\u1161\u11a8 \ua960\ua961\ua962 \ud7b0\ud7b1\ud7cb \u3131\u314f \uffa1\uffa2';
    expect(classifyContent(jamo)).toBe('cjk');
    expect(contentProfile(`${jamo}\n`).cjk).toBe(jamo.length + 1);
  });

  it('counts supplementary ideographs (surrogate pairs) as CJK', () => {
    // Extension B (U+20000-), Extension G (U+30000-, third plane) and kana supplement (U+1B000-).
    const rare = '𠀀𠀁𠮷𡈽𪚥 𰀀𰀁𰀂 𛀀𛀁';
    expect(classifyContent(rare)).toBe('cjk');
    expect(classifyContent(`${rare} and a few words`)).toBe('cjk');
  });

  it('does not count emoji and other astral symbols as CJK', () => {
    expect(classifyContent('😀🎉🚀😀🎉🚀 party time')).toBe('prose');
    expect(classifyContent('𝐀𝐁𝐂 𝑥 𝑦 𝑧 math letters')).toBe('prose');
  });
});

describe('segmentContent given what it cannot read', () => {
  it('names the argument instead of failing inside', () => {
    expect(() => segmentContent('abc', undefined as never)).toThrow(InvalidInputError);
    expect(() => segmentContent('abc', undefined as never)).toThrow(
      /segmentContent visit: expected a function \(contentClass, start, end\) => void, received undefined/,
    );
    expect(() => segmentContent(5 as never, () => undefined)).toThrow(
      /segmentContent text: expected a string, received a number/,
    );
  });
});
