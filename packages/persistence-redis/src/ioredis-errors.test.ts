import { describe, expect, it } from 'vitest';
import { isAuthError, refusedDatabaseMessage, unavailableReason } from './ioredis-errors.js';

/** An error reply as redis-errors makes it: told apart by its name. */
class ReplyError extends Error {
  override readonly name = 'ReplyError';
}

class MaxRetriesPerRequestError extends Error {
  override readonly name = 'MaxRetriesPerRequestError';
}

describe('ioredis errors in our words', () => {
  it.each([
    'NOAUTH Authentication required.',
    'WRONGPASS invalid username-password pair or user is disabled.',
    'ERR invalid password',
  ])('counts the reply %j as a password error', (reply) => {
    expect(isAuthError(new ReplyError(reply))).toBe(true);
  });

  it('does not count other replies, or connection errors that quote one, as password errors', () => {
    expect(isAuthError(new ReplyError('NOPERM this user has no permissions'))).toBe(false);
    expect(isAuthError(new Error('NOAUTH Authentication required.'))).toBe(false);
  });

  it('says a write whose reply was lost may have been applied, and a read only that it was lost', () => {
    const timedOut = new Error('Command timed out');
    expect(unavailableReason(timedOut, 'write', 800)).toBe(
      'the command timed out after 800 ms; the write may or may not have been applied',
    );
    expect(unavailableReason(timedOut, 'read', 800)).toBe('the command timed out after 800 ms');
    const dropped = new MaxRetriesPerRequestError('Reached the max retries per request limit (which is 0).');
    expect(unavailableReason(dropped, 'read')).toBe('the connection dropped while the command was in flight');
  });

  it("replaces ioredis' offline-queue wording, and keeps messages it has no words for", () => {
    const offline = new Error("Stream isn't writeable and enableOfflineQueue options is false");
    expect(unavailableReason(offline, 'write')).toBe(
      'not connected to Redis; reconnecting in the background (the command was not sent)',
    );
    expect(unavailableReason(new Error('connect ECONNREFUSED 127.0.0.1:1'), 'read')).toBe(
      'connect ECONNREFUSED 127.0.0.1:1',
    );
  });

  it('says a database is missing only when the server says so; another refusal is named as it is', () => {
    expect(refusedDatabaseMessage(99, 'ERR DB index is out of range', 'url')).toMatch(
      /^Redis has no database 99 .*in the url path/,
    );
    const acl = refusedDatabaseMessage(
      3,
      "NOPERM User app has no permissions to run the 'select' command",
      'client',
    );
    expect(acl).toBe(
      "Redis refused to select database 3 (NOPERM User app has no permissions to run the 'select' command); nothing was sent to another database",
    );
  });
});
