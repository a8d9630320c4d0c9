import type { ConversationHistory, HistoryEntry } from 'ctxguard';
import { messageText } from '../fact-check.js';
import { escapeHtml, formatInt } from './html.js';

const MESSAGE_PREVIEW_CHARS = 1_200;

function label(entry: HistoryEntry): string {
  if (entry.isTruncationMarker) return 'truncation marker';
  if (entry.isSummary) return 'summary';
  if (entry.condenseMember) return 'replacement';
  return entry.message.role;
}

function partsNote(entry: HistoryEntry): string {
  const content = entry.message.content;
  if (typeof content === 'string') return '';
  const calls = content.filter((part) => part.type === 'tool-call').map((part) => part.toolName);
  const results = content.filter((part) => part.type === 'tool-result').length;
  const notes = [
    calls.length > 0 ? `calls ${calls.join(', ')}` : '',
    results > 0 ? `${results} tool result${results === 1 ? '' : 's'}` : '',
  ];
  return notes.filter(Boolean).join(' · ');
}

function messageHtml(entry: HistoryEntry): string {
  const text = messageText(entry.message);
  const shown =
    text.length > MESSAGE_PREVIEW_CHARS
      ? `${text.slice(0, MESSAGE_PREVIEW_CHARS)}\n… (${formatInt(text.length - MESSAGE_PREVIEW_CHARS)} more characters)`
      : text;
  const note = partsNote(entry);
  return `<div class="message role-${escapeHtml(entry.message.role)}" data-entry-id="${escapeHtml(entry.id)}"><div class="meta"><span class="role">${escapeHtml(label(entry))}</span>${note ? ` <span class="note">${escapeHtml(note)}</span>` : ''} <span class="chars">${formatInt(text.length)} chars</span></div><pre>${escapeHtml(shown)}</pre></div>`;
}

/** The compaction an entry stands for, when it is a summary or a truncation marker. */
function compactionOf(entry: HistoryEntry): string | undefined {
  return entry.isSummary ? entry.condenseId : entry.isTruncationMarker ? entry.truncationId : undefined;
}

/** An entry and, when it hides others, a collapsed range of them (nested compactions inside). */
function entryHtml(history: ConversationHistory, entry: HistoryEntry, depth: number): string {
  const id = compactionOf(entry);
  if (id === undefined || depth > 50) return messageHtml(entry);
  const hidden = history.hidden(entry.id);
  const inner = hidden.map((child) => entryHtml(history, child, depth + 1)).join('');
  return `${messageHtml(entry)}<details class="hidden-range" data-compaction-id="${escapeHtml(id)}"><summary>${hidden.length} hidden message${hidden.length === 1 ? '' : 's'} · rewindable: <code>history.rewind(${escapeHtml(JSON.stringify(id))})</code></summary><div class="hidden-messages">${inner}</div></details>`;
}

/**
 * The effective history as HTML: what the model is sent, in order, with every range a compaction
 * hid collapsed under the summary or marker that stands for it (expand to see it; rewind brings it back).
 */
export function historyHtml(history: ConversationHistory): string {
  return history
    .effectiveEntries()
    .map((entry) => entryHtml(history, entry, 0))
    .join('');
}
