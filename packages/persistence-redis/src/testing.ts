import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { RedisPersistence, type RedisPersistenceOptions } from './redis-persistence.js';

/** A Redis server tests can talk to: one this process spawned, or the one `REDIS_URL` names. */
export interface RedisServer {
  /** `redis://…` URL to connect to. */
  readonly url: string;
  readonly port: number;
  /** True when this process started the server (and `stop()` kills it). */
  readonly spawned: boolean;
  /** Process id of a spawned redis-server (e.g. to SIGSTOP it in a test); undefined for `REDIS_URL`. */
  readonly pid: number | undefined;
  /** Kills a spawned server with SIGKILL and waits until it is gone; a no-op for `REDIS_URL`. */
  stop(): Promise<void>;
}

/** Options of {@link spawnRedisServer}. */
export interface SpawnRedisServerOptions {
  /** Port to listen on (e.g. to restart a server where it was); a free one when omitted. */
  port?: number;
  /** How long to wait for the first PONG. Default 10 s. */
  startTimeoutMs?: number;
  /** The `redis-server` binary. Default `redis-server` from `PATH`. */
  binary?: string;
  /** More command-line arguments for redis-server (e.g. `['--hz', '100']`). */
  extraArgs?: string[];
}

/**
 * Runs redis-server under a small `sh` watchdog: closing the watchdog's stdin (or this process
 * dying, which closes it too) SIGKILLs the server, so no server outlives the test process even
 * when a test runner kills it with SIGTERM. The watchdog exits once the server is gone.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$REDIS_BIN" "$@" 3<&- </dev/null >/dev/null 2>&1 &',
  'pid=$!',
  'echo "$pid"',
  '{ read -r _ <&3; kill -9 "$pid" 2>/dev/null; } &',
  'watcher=$!',
  'wait "$pid"; code=$?',
  'kill "$watcher" 2>/dev/null',
  'rm -rf "$REDIS_DIR"',
  'exit "$code"',
].join('\n');

/**
 * Starts a private redis-server on 127.0.0.1 (no RDB, no AOF, data dir in the OS temp folder)
 * and resolves once it answers PING. Always spawns, whatever `REDIS_URL` says.
 */
export async function spawnRedisServer(options: SpawnRedisServerOptions = {}): Promise<RedisServer> {
  const attempts = options.port === undefined ? 5 : 1;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      return await spawnOnPort(port, options);
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error) || !/address already in use/i.test(error.message)) throw error;
    }
  }
  throw lastError;
}

async function spawnOnPort(port: number, options: SpawnRedisServerOptions): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'ctxguard-redis-'));
  const logFile = join(dir, 'redis.log');
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--dir',
    dir,
    '--logfile',
    logFile,
    '--loglevel',
    'notice',
    ...(options.extraArgs ?? []),
  ];
  const child = spawn('sh', ['-c', WATCHDOG, 'ctxguard-redis-watchdog', ...args], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, REDIS_BIN: options.binary ?? 'redis-server', REDIS_DIR: dir },
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  child.stdin?.on('error', () => undefined);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.ref(); // keep the event loop alive until the exit is seen
      child.stdin?.end();
    }
    await exited;
  };
  let pid: number | undefined;
  try {
    pid = await readPid(child);
    await waitForPong(port, exited, options.startTimeoutMs ?? 10_000);
  } catch (error) {
    await stop();
    const log = await readFile(logFile, 'utf8').catch(() => '');
    await rm(dir, { recursive: true, force: true });
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`redis-server did not start on port ${port}: ${reason}${log ? `\n${tail(log)}` : ''}`, {
      cause: error,
    });
  }
  unrefChild(child);
  return { url: `redis://127.0.0.1:${port}`, port, spawned: true, pid, stop };
}

/** The watchdog prints the server's pid as its first line, then nothing else. */
async function readPid(child: ChildProcess): Promise<number> {
  const stdout = child.stdout;
  if (stdout === null) throw new Error('no stdout from the redis-server watchdog');
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline === -1) return;
      stdout.off('data', onData);
      stdout.off('end', onEnd);
      stdout.destroy();
      const pid = Number(text.slice(0, newline).trim());
      if (Number.isInteger(pid) && pid > 0) resolve(pid);
      else reject(new Error(`unexpected watchdog output ${JSON.stringify(text)}`));
    };
    const onEnd = (): void => reject(new Error('could not run sh'));
    stdout.on('data', onData);
    stdout.once('end', onEnd);
  });
}

function unrefChild(child: ChildProcess): void {
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
}

function tail(text: string): string {
  return text.trim().split('\n').slice(-8).join('\n');
}

/** A TCP port nobody listens on right now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPong(port: number, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  let gone = false;
  let exitCode: number | null = null;
  void exited.then((code) => {
    gone = true;
    exitCode = code;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) {
      throw new Error(
        exitCode === 127
          ? 'redis-server not found (exit code 127)'
          : `redis-server exited with code ${exitCode ?? 'unknown'}`,
      );
    }
    if (await pingOnce(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no PONG within ${timeoutMs} ms`);
}

/** Sends one inline PING over a raw socket; true on `+PONG`. */
async function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    let result = false;
    const finish = (ok: boolean): void => {
      result = ok;
      socket.destroy();
    };
    // Resolves on 'close', so no probe socket outlives the call.
    socket.once('close', () => resolve(result));
    socket.setTimeout(500, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

/** Resolves when the server at `url` answers PING (auth and TLS as the URL says), else rejects. */
async function pingUrl(url: string): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3000,
    commandTimeout: 3000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let socketError: Error | undefined;
  client.on('error', (error: Error) => {
    socketError ??= error;
  });
  try {
    await client.connect();
    const pong = await client.ping();
    if (pong !== 'PONG') throw new Error(`PING answered ${JSON.stringify(pong)}`);
  } catch (error) {
    throw socketError ?? error;
  } finally {
    client.disconnect();
  }
}

/**
 * The server tests should use: `REDIS_URL` when set (checked with PING), otherwise a fresh
 * redis-server spawned on a free port. Rejects when neither works.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const fromEnv = process.env.REDIS_URL;
  if (fromEnv !== undefined && fromEnv !== '') {
    try {
      await pingUrl(fromEnv);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`REDIS_URL=${fromEnv} does not answer PING: ${reason}`, { cause: error });
    }
    const parsed = new URL(fromEnv);
    return {
      url: fromEnv,
      port: Number(parsed.port || 6379),
      spawned: false,
      pid: undefined,
      stop: async () => undefined,
    };
  }
  try {
    return await spawnRedisServer();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`REDIS_URL is not set and no redis-server could be started: ${reason}`, { cause: error });
  }
}

/** Where Redis tests run, or why they cannot; see {@link redisTestTarget}. */
export type RedisTestTarget =
  | { readonly available: true; readonly url: string; readonly server: RedisServer }
  | { readonly available: false; readonly reason: string };

let sharedTarget: Promise<RedisTestTarget> | undefined;
let skipNoticeShown = false;

/**
 * One Redis server per test process (first call starts it; later calls share it), for
 * `describe.skipIf(!target.available)`. When no server is possible it throws if `CI=true`,
 * so CI can never skip Redis tests silently; elsewhere it prints a visible skip notice.
 */
export async function redisTestTarget(): Promise<RedisTestTarget> {
  sharedTarget ??= toTarget(startRedisServer());
  return requireInCi(await sharedTarget);
}

/**
 * Like {@link redisTestTarget} but always spawns a fresh private server (even when `REDIS_URL`
 * is set), for tests that kill, freeze or restart it. The caller stops `target.server`.
 */
export async function spawnedRedisTestTarget(
  options: SpawnRedisServerOptions = {},
): Promise<RedisTestTarget> {
  return requireInCi(await toTarget(spawnRedisServer(options)));
}

async function toTarget(starting: Promise<RedisServer>): Promise<RedisTestTarget> {
  try {
    const server = await starting;
    return { available: true, url: server.url, server };
  } catch (error) {
    return { available: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

function requireInCi(target: RedisTestTarget): RedisTestTarget {
  if (target.available) return target;
  if (process.env.CI === 'true') {
    throw new Error(`Redis tests cannot run in CI (CI=true): ${target.reason}`);
  }
  if (!skipNoticeShown) {
    skipNoticeShown = true;
    console.warn(
      `\n⚠️  SKIPPING Redis tests: ${target.reason}\n   Install redis-server or set REDIS_URL to run them.\n`,
    );
  }
  return target;
}

const openStores = new Set<RedisPersistence>();
let namespaceCounter = 0;

/**
 * A {@link RedisPersistence} on the {@link redisTestTarget} server under a namespace no other
 * call, test file or process uses, so tests of many packages can share one server. A given
 * `namespace` is appended to that unique one.
 */
export async function createTestRedisPersistence(
  options: Omit<RedisPersistenceOptions, 'url' | 'client'> = {},
): Promise<RedisPersistence> {
  const target = await redisTestTarget();
  if (!target.available) throw new Error(`No Redis for tests: ${target.reason}`);
  namespaceCounter += 1;
  const unique = `ctxguard-test-${process.pid}-${namespaceCounter}-${randomUUID().slice(0, 8)}`;
  const store = new RedisPersistence({
    ...options,
    namespace: options.namespace ? `${unique}-${options.namespace}` : unique,
    url: target.url,
  });
  openStores.add(store);
  return store;
}

/** Deletes what every {@link createTestRedisPersistence} store wrote and closes them (use in `afterAll`). */
export async function closeTestRedisPersistences(): Promise<void> {
  const stores = [...openStores];
  openStores.clear();
  await Promise.all(
    stores.map(async (store) => {
      await store.clear().catch(() => undefined);
      await store.close();
    }),
  );
}
