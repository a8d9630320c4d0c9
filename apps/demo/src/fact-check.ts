import type { Message } from 'ctxguard';

/** Kinds of fact the demo looks for. */
export type DemoFactKind = 'path' | 'error' | 'command' | 'version';

/** A fact an agent would need later, verbatim from the transcript. */
export interface DemoFact {
  kind: DemoFactKind;
  value: string;
}

/** How many of a transcript's facts a conversation still shows. */
export interface FactTally {
  kept: number;
  total: number;
  /** Up to 20 facts no longer shown, in transcript order. */
  lost: DemoFact[];
}

const PATH =
  /(?<![\w/.@-])(?:\/[\w.@-]+|[\w@.-]+)(?:\/[\w.@-]+)+\.[a-z]{1,5}\b|(?<![\w/])\/(?:srv|tmp|work|usr)(?:\/[\w.@-]+)+/g;
const VERSION = /(?<![\w.])v?\d+\.\d+\.\d+(?![\w.]\d)/g;
const ERROR_LINE = /\berror TS\d+\b|\bAssertionError\b|\b[A-Z]\w*Error:|^\s*FAIL\s|\[exit code [1-9]\d*\]/;
const SHELL_TOOLS = new Set(['bash', 'shell', 'run', 'run_command', 'exec', 'terminal']);
const MAX_FACT = 140;

/** Every string inside a JSON value. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) strings(item, out);
  return out;
}

/** The text a model reads in one message, tool inputs and outputs included. */
export function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const chunks: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text' || part.type === 'reasoning') chunks.push(part.text);
    else if (part.type === 'tool-call') chunks.push(...strings(part.input));
    else if (part.type === 'tool-result') chunks.push(...strings(part.output));
  }
  return chunks.join('\n');
}

function scan(text: string, add: (kind: DemoFactKind, value: string) => void, errors: boolean): void {
  for (const match of text.matchAll(PATH)) add('path', match[0]);
  for (const match of text.matchAll(VERSION)) add('version', match[0]);
  if (!errors) return;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (ERROR_LINE.test(trimmed)) add('error', trimmed.slice(0, MAX_FACT));
  }
}

/**
 * The facts of a transcript an agent needs later: file paths, versions, error lines of command
 * output and the shell commands it ran. The system prompt is skipped (every strategy keeps it).
 */
export function findFacts(messages: readonly Message[]): DemoFact[] {
  const seen = new Map<string, DemoFactKind>();
  const add = (kind: DemoFactKind, value: string) => {
    if (!seen.has(value)) seen.set(value, kind);
  };
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (typeof message.content === 'string') {
      scan(message.content, add, message.role !== 'user');
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') scan(part.text, add, false);
      if (part.type === 'tool-call') {
        const command = (part.input as { command?: unknown } | null)?.command;
        if (SHELL_TOOLS.has(part.toolName) && typeof command === 'string')
          add('command', command.slice(0, MAX_FACT));
        for (const text of strings(part.input)) scan(text, add, false);
      }
      if (part.type === 'tool-result')
        for (const text of strings(part.output)) scan(text, add, part.toolName !== 'read_file');
    }
  }
  return [...seen].map(([value, kind]) => ({ kind, value }));
}

/** Which `facts` still appear verbatim somewhere in `messages` (what the model is sent). */
export function tallyFacts(facts: readonly DemoFact[], messages: readonly Message[]): FactTally {
  const text = messages.map(messageText).join('\n\u0000\n');
  const lost = facts.filter((fact) => !text.includes(fact.value));
  return { kept: facts.length - lost.length, total: facts.length, lost: lost.slice(0, 20) };
}
