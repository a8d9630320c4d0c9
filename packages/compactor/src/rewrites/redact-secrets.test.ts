import { InvalidInputError } from '@ctxguard/core';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact-secrets.js';

// Realistic shapes, fake values (none of these are live credentials).
const cases: [string, string, string][] = [
  ['OpenAI legacy', 'key sk-3kF9xQ2mLp7Rt8Vw1Yz4Bc6Dn5Eh0Gj2Kl9Mn3Pq7Rs1Tu here', '[redacted:openai-key]'],
  [
    'OpenAI project',
    'OPENAI_KEY is sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9oPq2rSt5uVw8xYz1_T3BlbkFJ',
    '[redacted:openai-key]',
  ],
  [
    'Anthropic',
    'ANTHROPIC sk-ant-api03-Xy7Zq2Wv9Ut4Sr1Qp8On5Ml3Kj6Ih0Gf-AbCdEfGh_123456789AA',
    '[redacted:anthropic-key]',
  ],
  ['Google', 'maps key AIzaSyD3f8Gk2Lm9Np4Qr7St1Uv6Wx0Yz5Ab8Cd ok', '[redacted:google-api-key]'],
  ['AWS access key id', 'id AKIAIOSFODNN7EXAMPLE used', '[redacted:aws-access-key-id]'],
  ['AWS session key id', 'id ASIAY34FZKBOKMUTVV7A used', '[redacted:aws-access-key-id]'],
  [
    'AWS secret',
    'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'aws_secret_access_key = [redacted:aws-secret-key]',
  ],
  ['GitHub classic', 'token ghp_16C7e42F292c6912E7710c838347Ae178B4a done', '[redacted:github-token]'],
  ['GitHub oauth', 'gho_16C7e42F292c6912E7710c838347Ae178B4a', '[redacted:github-token]'],
  ['GitHub server', 'ghs_16C7e42F292c6912E7710c838347Ae178B4a', '[redacted:github-token]'],
  [
    'GitHub fine-grained',
    'github_pat_11ABCDEFG0123456789abc_0123456789abcdefghijABCDEFGHIJ0123456789abcdefghijABCDEF',
    '[redacted:github-token]',
  ],
  ['Slack bot', 'SLACK xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', '[redacted:slack-token]'],
  [
    'Slack user',
    'xoxp-123456789012-123456789012-123456789012-0123456789abcdef0123456789abcdef',
    '[redacted:slack-token]',
  ],
  ['Stripe secret', 'sk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUv', '[redacted:stripe-key]'],
  ['Stripe restricted', 'rk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUv', '[redacted:stripe-key]'],
  ['Stripe test', 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', '[redacted:stripe-key]'],
  [
    'Bearer',
    'curl -H "Authorization: Bearer 4f9a1c2e8b7d6a5f4e3d2c1b0a9f8e7d" https://api.example.com',
    'Authorization: Bearer [redacted:bearer-token]" https://api.example.com',
  ],
  [
    'JWT',
    'cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c end',
    'cookie [redacted:jwt] end',
  ],
  [
    'URL password',
    'DATABASE_URL=postgres://admin:s3cr3t-P4ss@db.internal:5432/app',
    'postgres://admin:[redacted:url-password]@db.internal:5432/app',
  ],
  ['KEY=value', 'DB_PASSWORD=hunter2hunter2', 'DB_PASSWORD=[redacted:secret]'],
  ['export KEY=value', 'export API_KEY=abc123def456', 'export API_KEY=[redacted:secret]'],
  ['PASSWORD: value', 'PASSWORD: Tr0ub4dor&3', 'PASSWORD: [redacted:secret]'],
  [
    'JSON secret',
    '{"client_secret": "9f8e7d6c5b4a", "user": "ada"}',
    '{"client_secret": "[redacted:secret]", "user": "ada"}',
  ],
  ['quoted with spaces', "password = 'correct horse battery staple'", "password = '[redacted:secret]'"],
];

describe('redactSecrets', () => {
  it.each(cases)('%s', (_name, input, expected) => {
    const out = redactSecrets(input);
    expect(out).toContain(expected);
    expect(out).not.toBe(input);
  });

  it('redacts a whole private-key block, and one cut off before its end', () => {
    const block = [
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
      'QyNTUxOQAAACBhc2RmYXNkZmFzZGZhc2RmYXNkZmFzZGZhc2RmYXNkZgAAAJhhc2RmYXNk',
      '-----END OPENSSH PRIVATE KEY-----',
    ].join('\n');
    expect(redactSecrets(`before\n${block}\nafter`)).toBe('before\n[redacted:private-key]\nafter');
    const cut = block.split('\n').slice(0, 3).join('\n');
    expect(redactSecrets(`${cut}\nThe key above was pasted by mistake.`)).toBe(
      '[redacted:private-key]\nThe key above was pasted by mistake.',
    );
  });

  it('keeps ordinary text: git hashes, UUIDs, paths, token counts, prose', () => {
    const ordinary = [
      'commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39',
      'Author: Ada Lovelace <ada@example.com>',
      'request 123e4567-e89b-12d3-a456-426614174000 failed',
      'see /home/ada/projects/task-runner-configuration/src/index.ts',
      'max_tokens=4096 and token_count: 12',
      'Password: must be at least 8 characters long',
      'The token budget is 128000 tokens.',
      'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'const apiKey = process.env.OPENAI_API_KEY;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell reference, not a template
      'API_KEY=${API_KEY}',
      'password: <your password>',
      'https://example.com/docs/getting-started',
      'Bearer tokens are sent in the Authorization header.',
      'the sk-learn-style-classifier-package-name works',
    ].join('\n');
    expect(redactSecrets(ordinary)).toBe(ordinary);
  });

  it('is idempotent', () => {
    const text = cases.map(([, input]) => input).join('\n');
    const once = redactSecrets(text);
    expect(redactSecrets(once)).toBe(once);
  });

  it('refuses what is not a string, without printing it, rather than return its secrets as they were', () => {
    const secret = 'OPENAI_API_KEY=sk-proj-4fG7hJ9kL2mN5pQ8rS1tV3wX6yZ0';
    for (const [value, kind] of [
      [{ env: secret }, 'an object'],
      [[secret], 'an array'],
      [null, 'null'],
      [42, 'a number'],
    ] as const) {
      const call = () => redactSecrets(value as unknown as string);
      expect(call).toThrow(InvalidInputError);
      expect(call).toThrow(`redactSecrets text: expected a string, received ${kind};`);
      expect(call).not.toThrow(/sk-proj/);
    }
    expect(redactSecrets('')).toBe('');
  });
});
