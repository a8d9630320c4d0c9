import { InvalidInputError } from '@ctxguard/core';
import { describeKind } from '@ctxguard/shared';

/**
 * Secret redaction for text that ctxguard stores (summaries, facts, pruned-output placeholders):
 * provider API keys, tokens, private keys and passwords become `[redacted:<label>]`.
 */

interface SecretPattern {
  label: string;
  pattern: RegExp;
  /** Builds the replacement from the match; default: the label alone. */
  replace?: (match: string, ...groups: string[]) => string;
}

const redacted = (label: string): string => `[redacted:${label}]`;

/** Start of a token: not preceded by a character that could belong to it. */
const B = '(?<![A-Za-z0-9_\\-])';
/** End of a token. */
const E = '(?![A-Za-z0-9_\\-])';

/** Key names whose values are secrets in `KEY=value` / `key: value` lines. */
const SECRET_KEY =
  '[A-Za-z0-9_.\\-]*?(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_\\-]?key|apikey|access[_\\-]?key|private[_\\-]?key|auth(?:[_\\-]?key)?|credentials?|client[_\\-]?secret|session[_\\-]?key|signing[_\\-]?key|encryption[_\\-]?key|cookie|dsn)';

/** Values that are clearly not secrets: empty, placeholders, references, already redacted. */
function isPlaceholderValue(value: string): boolean {
  return (
    value.length < 4 ||
    /^\[redacted:/.test(value) ||
    /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\*+|x+|\.\.\.|…|null|none|true|false|undefined|changeme|required|optional|string)$/i.test(
      value,
    ) ||
    /^(?:process\.env|env|os\.environ|import\.meta\.env)\b/.test(value)
  );
}

// Runs are written `[…]{n}[…]*`, never `[…]{n,}`: V8 matches `{n,}` recursively and overflows the
// stack on a run of ~10 million characters (a base64 JSON blob starts with `eyJ`); the two match alike.
const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    label: 'private-key',
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?:\r?\n(?:[A-Za-z0-9+/=]{16}[A-Za-z0-9+/=]*|[A-Za-z-]+: [^\n]*))*)/g,
  },
  {
    label: 'jwt',
    pattern: new RegExp(
      `${B}eyJ[A-Za-z0-9_-]{8}[A-Za-z0-9_-]*\\.eyJ[A-Za-z0-9_-]{8}[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]{16}[A-Za-z0-9_-]*${E}`,
      'g',
    ),
  },
  { label: 'anthropic-key', pattern: new RegExp(`${B}sk-ant-[A-Za-z0-9_-]{20}[A-Za-z0-9_-]*${E}`, 'g') },
  {
    label: 'openai-key',
    pattern: new RegExp(
      `${B}sk-(?:(?:proj|svcacct|admin|None)-)?(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20}[A-Za-z0-9_-]*${E}`,
      'g',
    ),
  },
  { label: 'google-api-key', pattern: new RegExp(`${B}AIza[0-9A-Za-z_-]{35}${E}`, 'g') },
  {
    label: 'aws-access-key-id',
    pattern: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[A-Z0-9]{16}(?![A-Z0-9])/g,
  },
  {
    label: 'aws-secret-key',
    pattern:
      /(aws_?secret_?(?:access_?)?key(?:_id)?["']?\s*[=:]\s*["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    replace: (_match, prefix) => `${prefix}${redacted('aws-secret-key')}`,
  },
  {
    label: 'github-token',
    pattern: new RegExp(
      `${B}(?:gh[pousr]_[A-Za-z0-9]{30}[A-Za-z0-9]*|github_pat_[A-Za-z0-9_]{22}[A-Za-z0-9_]*)${E}`,
      'g',
    ),
  },
  {
    label: 'slack-webhook',
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9_/-]{20}[A-Za-z0-9_/-]*/g,
  },
  { label: 'slack-token', pattern: new RegExp(`${B}xox[abposr]-[A-Za-z0-9-]{10}[A-Za-z0-9-]*${E}`, 'g') },
  {
    label: 'stripe-key',
    pattern: new RegExp(`${B}(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16}[A-Za-z0-9]*${E}`, 'g'),
  },
  {
    label: 'bearer-token',
    pattern:
      /(\b[Bb]earer\s+|\bAuthorization:\s*Token\s+)(?=[A-Za-z0-9._~+/-]*\d)([A-Za-z0-9._~+/-]{16}[A-Za-z0-9._~+/-]*=*)(?![A-Za-z0-9._~+/=-])/gi,
    replace: (_match, prefix) => `${prefix}${redacted('bearer-token')}`,
  },
  {
    label: 'basic-auth',
    pattern: /(\bAuthorization:\s*Basic\s+)([A-Za-z0-9+/]{8}[A-Za-z0-9+/]*=*)/gi,
    replace: (_match, prefix) => `${prefix}${redacted('basic-auth')}`,
  },
  {
    label: 'url-password',
    pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"`<>]+:)([^\s@/'"`<>]+)(@)/gi,
    replace: (match, prefix, password, at) =>
      password.startsWith('[redacted:') ? match : `${prefix}${redacted('url-password')}${at}`,
  },
  {
    // "key": "value" / key: 'value' / KEY="value with spaces"
    label: 'secret',
    pattern: new RegExp(
      `((?<![A-Za-z0-9])["']?${SECRET_KEY}["']?\\s*(?:=|:|=>)\\s*)(["'\`])((?:(?!\\2)[^\\\\\\n]|\\\\.){1,500})\\2`,
      'gi',
    ),
    replace: (match, prefix, quote, value) =>
      isPlaceholderValue(value) ? match : `${prefix}${quote}${redacted('secret')}${quote}`,
  },
  {
    // KEY=value / export KEY=value / PASSWORD: value (one unquoted token ending the line or the pair)
    label: 'secret',
    pattern: new RegExp(
      `((?:^|[\\s,;{(])(?:export\\s+)?${SECRET_KEY}\\s*(?:=|:)[ \\t]*)([^\\s"'\`,;)}]+)(?=[ \\t]*(?:$|[,;)}]|\\s+#))`,
      'gim',
    ),
    replace: (match, prefix, value) => (isPlaceholderValue(value) ? match : `${prefix}${redacted('secret')}`),
  },
];

/**
 * Replaces secrets in `text` with `[redacted:<label>]`: OpenAI, Anthropic, Google, AWS, GitHub,
 * Slack and Stripe keys, bearer tokens, JWTs, private-key blocks, passwords in URLs and the values
 * of secret-looking `KEY=value` / `key: value` pairs. Ordinary text (hashes, UUIDs, paths) is kept.
 */
export function redactSecrets(text: string): string {
  if (typeof text !== 'string')
    throw new InvalidInputError(
      // The kind only: the value itself may hold the secrets.
      `redactSecrets text: expected a string, received ${describeKind(text)}; redact each string of an object, or its JSON.stringify`,
      [],
    );
  if (text.length === 0) return text;
  let out = text;
  for (const { label, pattern, replace } of SECRET_PATTERNS) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, (match: string, ...rest: unknown[]) => {
      const groups = rest.filter((g): g is string => typeof g === 'string' || g === undefined) as string[];
      return replace ? replace(match, ...groups) : redacted(label);
    });
  }
  return out;
}
