import type { ExtractedFact } from '@ctxguard/core';
import { parseFactsBlock, renderFactsBlock } from './facts-block.js';
import {
  closeMarker,
  escapeLine,
  findOpenMarkers,
  MARKER_KEYWORD,
  neutralizeMarkers,
  openMarker,
  restoreMarkers,
  unescapeLine,
} from './markers.js';

/** What a summary message holds. */
export interface SummaryContent {
  /** The summary itself (any text; escaped when rendered, restored exactly when parsed). */
  text: string;
  /** Facts carried forward, rendered as a facts block inside the summary. */
  facts?: readonly ExtractedFact[];
  /** How many messages the summary stands for. */
  messageCount: number;
  /** Files the summarized messages read. */
  filesRead?: readonly string[];
  /** Files the summarized messages created or changed. */
  filesModified?: readonly string[];
}

const SUMMARY = 'summary';
const FILES = 'summary-files';
const SUMMARY_CLOSE = closeMarker(SUMMARY);
const SECTION_START = `\n<!-- ${MARKER_KEYWORD}:`;
const SECTION_CLOSE = `\n<!-- /${MARKER_KEYWORD}:`;

function headline(count: number): string {
  return `[Summary of ${count} earlier ${count === 1 ? 'message' : 'messages'}]`;
}

function renderFileList(title: string, files: readonly string[] | undefined): string[] {
  if (!files || files.length === 0) return [];
  return [title, ...files.map((file) => `- ${escapeLine(neutralizeMarkers(file))}`)];
}

/**
 * The text of a summary message: an opening marker with the message count, a headline, the
 * summary text, the files read and modified, a facts block, the closing marker. User or tool text
 * inside is neutralized, so only this function's own markers delimit the parts. Empty `filesRead`,
 * `filesModified` and `facts` are left out (and come back absent from {@link parseSummary}).
 */
export function renderSummary(summary: SummaryContent): string {
  const count = Math.max(0, Math.floor(summary.messageCount));
  const parts = [
    `${openMarker(SUMMARY, { messages: count })}\n${headline(count)}\n${neutralizeMarkers(summary.text)}`,
  ];
  const files = [
    ...renderFileList('Files read:', summary.filesRead),
    ...renderFileList('Files modified:', summary.filesModified),
  ];
  if (files.length > 0) parts.push(`${openMarker(FILES)}\n${files.join('\n')}`);
  const facts = renderFactsBlock(summary.facts ?? []);
  if (facts) parts.push(facts);
  parts.push(SUMMARY_CLOSE);
  return parts.join('\n');
}

function parseFileLists(body: string): Pick<SummaryContent, 'filesRead' | 'filesModified'> {
  const lists: Pick<SummaryContent, 'filesRead' | 'filesModified'> = {};
  let current: string[] | undefined;
  for (const raw of body.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === 'Files read:') {
      current = [];
      lists.filesRead = current;
    } else if (line === 'Files modified:') {
      current = [];
      lists.filesModified = current;
    } else if (line.startsWith('- ') && current) {
      current.push(restoreMarkers(unescapeLine(line.slice(2))));
    }
  }
  return lists;
}

/**
 * Reads a summary written by {@link renderSummary} (it must start the text); `null` for any other
 * text. The text, file lists and facts come back exactly as they were rendered.
 */
export function parseSummary(text: string): SummaryContent | null {
  const body = text.trimStart();
  const [open] = findOpenMarkers(body, SUMMARY);
  if (open?.start !== 0) return null;
  const messageCount = Number(open.attributes['messages']);
  if (!/^\d{1,15}$/.test(open.attributes['messages'] ?? '')) return null;
  let rest = body.slice(open.end);
  const head = `\n${headline(messageCount)}\n`;
  if (!rest.startsWith(head)) return null;
  rest = rest.slice(head.length);
  const closeAt = rest.indexOf(SUMMARY_CLOSE);
  if (closeAt !== -1) rest = rest.slice(0, closeAt);
  // The summary text is neutralized, so the first marker after it is one of ours.
  let textEnd = rest.indexOf(SECTION_START);
  const closing = rest.indexOf(SECTION_CLOSE);
  if (textEnd === -1 || (closing !== -1 && closing < textEnd)) textEnd = closing;
  if (textEnd === -1) textEnd = rest.endsWith('\n') ? rest.length - 1 : rest.length;
  const summary: SummaryContent = { text: restoreMarkers(rest.slice(0, textEnd)), messageCount };
  const sections = rest.slice(textEnd);
  const [files] = findOpenMarkers(sections, FILES);
  if (files) {
    const next = sections.indexOf(SECTION_START, files.end);
    Object.assign(summary, parseFileLists(sections.slice(files.end, next === -1 ? undefined : next)));
  }
  const facts = parseFactsBlock(sections);
  if (facts && facts.length > 0) summary.facts = facts;
  return summary;
}

/** True when `text` is a summary written by {@link renderSummary}. */
export function isSummaryText(text: string): boolean {
  const body = text.trimStart();
  const [open] = findOpenMarkers(body.slice(0, 200), SUMMARY);
  return open !== undefined && open.start === 0;
}
