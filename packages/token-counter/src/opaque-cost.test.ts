import { describe, expect, it } from 'vitest';
import { ENCRYPTED_BYTES_PER_TOKEN, messageTokens, opaqueTokens, partTokens } from './message-cost.js';

const countText = (text: string) => Math.ceil(text.length / 4);
const options = { provider: 'anthropic', model: 'claude-sonnet-4-6', countText };

describe('opaque provider items', () => {
  it('count an Anthropic compaction summary as its text', () => {
    const summary = 'The user plans a trip to Oslo in March and wants hotels near the station.';
    const part = {
      type: 'opaque',
      provider: 'anthropic',
      kind: 'compaction',
      data: { type: 'compaction', content: summary },
    };
    expect(partTokens(part, options)).toBe(countText(summary));
  });

  it('estimate an encrypted OpenAI item from its payload size', () => {
    const encrypted = 'gAAAAAB'.padEnd(4000, 'x');
    const tokens = opaqueTokens({ type: 'compaction', id: 'cmp_1', encrypted_content: encrypted }, countText);
    expect(tokens).toBe(Math.ceil(3000 / ENCRYPTED_BYTES_PER_TOKEN));
    // A bigger payload costs more; the estimate is not a constant.
    expect(opaqueTokens({ encrypted_content: encrypted.repeat(2) }, countText)).toBe(tokens * 2);
  });

  it('count a message holding one and never throw on odd data', () => {
    const message = {
      role: 'assistant',
      content: [
        {
          type: 'opaque',
          provider: 'openai',
          kind: 'compaction',
          data: { encrypted_content: 'abcd'.repeat(100) },
        },
        { type: 'text', text: 'ok' },
      ],
    };
    expect(messageTokens(message as never, options)).toBeGreaterThan(75);
    expect(opaqueTokens(null, countText)).toBe(0);
    expect(opaqueTokens({ other: 'x'.repeat(40) }, countText)).toBe(
      countText('{"other":"' + 'x'.repeat(40) + '"}'),
    );
  });
});
