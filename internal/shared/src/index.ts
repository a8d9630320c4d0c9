// Helpers the ctxguard packages share. This package is private: each package bundles what it uses
// into its own build, so none of these is part of a published surface.

export { abortReason, abortSignalSchema, throwIfAborted } from './abort.js';
export { pushAll } from './arrays.js';
export { containsWhole } from './contains-whole.js';
export { describeThrown, describeValue } from './describe-value.js';
export { formatPath } from './format-path.js';
export { isRecord, partsOf, roleOf } from './message-readers.js';
export type { MessageSnapshot } from './message-snapshot.js';
export { matchesSnapshot, takeMessageSnapshot } from './message-snapshot.js';
export { randomUuid } from './random-uuid.js';
export { charsPerRequest, toolsWindowTokens } from './tools-window.js';
