/** Whether a command only reads or may change data (and so may have been applied when its reply is lost). */
export type CommandAccess = 'read' | 'write';

/** Where the connection settings come from: the store's `url`, or the options of a caller's client. */
export type ConnectionSource = 'url' | 'client';

/**
 * The message of an error reply from the server (as opposed to a connection failure). Checked by
 * name, so that replies seen by a client from another copy of ioredis count too.
 */
export function replyErrorMessage(error: unknown): string | undefined {
  return error instanceof Error && error.name === 'ReplyError' ? error.message : undefined;
}

/** A reply saying the password is missing (`NOAUTH`) or wrong (`WRONGPASS`, `ERR invalid password`). */
export function isAuthError(error: unknown): error is Error {
  const reply = replyErrorMessage(error);
  return reply !== undefined && /^(NOAUTH|WRONGPASS)\b|^ERR invalid (password|username-password)/.test(reply);
}

/** Why a password was refused, and which option fixes it. */
export function authFailureMessage(reply: string, source: ConnectionSource): string {
  const problem = reply.startsWith('NOAUTH')
    ? 'Redis requires a password and none was given'
    : 'Redis refused the password';
  const fix =
    source === 'url'
      ? 'in the url (redis://[user]:<password>@host:port)'
      : "with the client's password option";
  return `${problem} (${reply}); give the right password ${fix}`;
}

/** Why the server would not select the configured database, and which option fixes it. */
export function refusedDatabaseMessage(database: number, reply: string, source: ConnectionSource): string {
  if (!/DB index is out of range|invalid DB index/i.test(reply)) {
    // Another refusal (an ACL without SELECT, say): the database exists, the user may not use it.
    return `Redis refused to select database ${database} (${reply}); nothing was sent to another database`;
  }
  const fix = source === 'url' ? 'in the url path (redis://host:port/<db>)' : "with the client's db option";
  const choose = "choose one below the server's `databases` setting (16 by default)";
  return `Redis has no database ${database} (${reply}); ${choose} ${fix}; nothing was sent to another database`;
}

/**
 * Our words for a failure to reach Redis, in place of ioredis' internal ones; when a write's
 * reply was lost, says that it may have been applied.
 */
export function unavailableReason(error: unknown, access: CommandAccess, commandTimeoutMs?: number): string {
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith("Stream isn't writeable")) {
    return 'not connected to Redis; reconnecting in the background (the command was not sent)';
  }
  const lost = lostReplyReason(error, commandTimeoutMs);
  if (lost === undefined) return message;
  return access === 'write' ? `${lost}; the write may or may not have been applied` : lost;
}

/** Why a command that may have reached the server got no reply, or undefined for other errors. */
function lostReplyReason(error: unknown, commandTimeoutMs: number | undefined): string | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.message === 'Command timed out') {
    return `the command timed out after ${commandTimeoutMs ?? '?'} ms`;
  }
  // MaxRetriesPerRequestError extends AbortError; both reject commands in flight when the socket closes.
  if (error.name === 'MaxRetriesPerRequestError' || error.name === 'AbortError') {
    return 'the connection dropped while the command was in flight';
  }
  if (error.message === 'Connection is closed.') return 'the Redis connection was closed';
  return undefined;
}
