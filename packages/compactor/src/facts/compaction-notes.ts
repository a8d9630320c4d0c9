/**
 * The notes ctxguard's own rewrites write into a conversation — how many messages a summary or a
 * truncation stands for, how large a cut tool output was, how long an omitted payload ran. They
 * describe the compaction, not the work: read back by an extractor, their figures ("23 messages",
 * "8353 bytes") would come back as facts and take room from the conversation's own.
 */
const NOTES: readonly [RegExp, string][] = [
  // The headline of a summary (summary-format.ts).
  [/\[Summary of \d+ earlier messages?\]/g, '[Summary of earlier messages]'],
  // A truncation marker (markers.ts).
  [
    /\[Earlier conversation history was truncated to fit within context limits: \d+ messages? hidden\]/g,
    '[Earlier conversation history was truncated]',
  ],
  // A cut tool output (tool-output-limits.ts); where the full output was saved is kept.
  [/\[Output truncated from \d+ bytes to \d+ bytes(?:; \d+ lines omitted)?/g, '[Output truncated'],
  // An omitted payload (summarize-messages.ts) and a message compacted whole (last-resort.ts).
  [/\[base64 data, \d+ characters omitted\]/g, '[base64 data omitted]'],
  [
    /\[(\w+) message compacted from \d+ characters to fit the context\]/g,
    '[$1 message compacted to fit the context]',
  ],
];

/** `text` with the figures of ctxguard's own compaction notes taken out (the notes themselves stay). */
export function withoutCompactionNotes(text: string): string {
  let out = text;
  for (const [pattern, replacement] of NOTES) out = out.replace(pattern, replacement);
  return out;
}
