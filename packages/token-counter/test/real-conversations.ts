/**
 * Mixed conversations assembled from the held-out half of the real-text corpus: a system
 * prompt, user questions (prose or CJK), assistant answers with code, tool calls with JSON
 * arguments and tool results (JSON, source files, CJK documents). Seeded, so reproducible.
 */
import type { Message } from '@ctxguard/core';
import {
  type CorpusClass,
  chunks,
  heldOutText,
  trainingText,
} from '../../../test/support/real-text-corpus.ts';

/** A small deterministic PRNG (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Pools = Record<CorpusClass, string[]>;
const poolCache = new Map<string, Pools>();

function pools(half: 'held-out' | 'training', size: number): Pools {
  const key = `${half}:${size}`;
  const cached = poolCache.get(key);
  if (cached) return cached;
  const text = half === 'held-out' ? heldOutText : trainingText;
  const made = {
    prose: chunks(text('prose'), size),
    code: chunks(text('code'), size),
    json: chunks(text('json'), size),
    cjk: chunks(text('cjk'), size),
  };
  poolCache.set(key, made);
  return made;
}

/** Options of {@link realConversation}. */
export interface ConversationOptions {
  seed: number;
  /** Minimum characters of text in the conversation. Default 20,000. */
  minChars?: number;
  /** Relative weight of each class in tool results and answers; random per seed when omitted. */
  mix?: Partial<Record<CorpusClass, number>>;
  half?: 'held-out' | 'training';
}

/** A conversation of real text, at least `minChars` characters long. */
export function realConversation(options: ConversationOptions): {
  system: string;
  messages: Message[];
  chars: number;
} {
  const rand = seededRandom(options.seed);
  const minChars = options.minChars ?? 20_000;
  const small = pools(options.half ?? 'held-out', 600);
  const large = pools(options.half ?? 'held-out', 2500);
  const pick = (list: string[]): string => list[Math.floor(rand() * list.length)] ?? '';
  const mix: Record<CorpusClass, number> = {
    prose: options.mix?.prose ?? 0.2 + rand(),
    code: options.mix?.code ?? 0.2 + rand(),
    json: options.mix?.json ?? 0.2 + rand(),
    cjk: options.mix?.cjk ?? rand() * 0.8,
  };
  const total = mix.prose + mix.code + mix.json + mix.cjk;
  const pickClass = (): CorpusClass => {
    let x = rand() * total;
    for (const cls of ['prose', 'code', 'json', 'cjk'] as const) {
      x -= mix[cls];
      if (x <= 0) return cls;
    }
    return 'prose';
  };
  const system = pick(small.prose);
  const messages: Message[] = [];
  let chars = system.length;
  let call = 0;
  while (chars < minChars) {
    const askInCjk = mix.cjk > 0 && rand() < mix.cjk / total;
    const question = pick(askInCjk ? small.cjk : small.prose);
    messages.push({ role: 'user', content: question });
    chars += question.length;
    if (rand() < 0.6) {
      const cls = pickClass();
      const id = `call_${options.seed}_${call++}`;
      const input = { path: `src/file-${call}.ts`, query: pick(small.prose).slice(0, 80), limit: 20 };
      messages.push({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input }],
      });
      let output: string;
      if (cls === 'json') {
        const raw = pick(large.json);
        output = raw;
      } else output = pick(large[cls]);
      messages.push({
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output }],
      });
      chars += output.length + JSON.stringify(input).length;
    }
    const answerClass = pickClass();
    const answer =
      answerClass === 'code'
        ? `${pick(small.prose)}\n\n\`\`\`ts\n${pick(large.code)}\n\`\`\`\n`
        : `${pick(small[answerClass])}\n\n${pick(small[answerClass === 'json' ? 'prose' : answerClass])}`;
    messages.push({ role: 'assistant', content: answer });
    chars += answer.length;
  }
  return { system, messages, chars };
}
