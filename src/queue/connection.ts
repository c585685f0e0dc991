/**
 * The Redis a queue-mode search runs on, named by a URL: the connection
 * options every queue object takes, and a plain connection for powprime's
 * own keys. ioredis is loaded here on demand (and bullmq by the callers), so
 * commands that do not use a queue never load them.
 */
import type { ConnectionOptions } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import { QueueUnreachableError } from '../errors.ts';
import { ignoreErrorEvents } from '../ignored-rejection.ts';
import { abortReason } from '../validate.ts';

export const DEFAULT_QUEUE_NAME = 'powprime';
/** How long the first contact with Redis may take before the command gives up. */
const CONNECT_TIMEOUT_MS = 5_000;

export interface QueueTarget {
  /** The URL as given, without a password (for messages). */
  display: string;
  connection: ConnectionOptions;
  name: string;
}

/** `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS). */
export function parseQueueTarget(url: string, name = DEFAULT_QUEUE_NAME): QueueTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RangeError(`--queue must be a URL like redis://host:6379/0 (got ${JSON.stringify(url)})`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new RangeError(`--queue must be a redis:// or rediss:// URL (got ${JSON.stringify(url)})`);
  }
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,5}$/.test(db)) throw new RangeError(`--queue database must be a number, as in redis://host:6379/0 (got ${JSON.stringify(db)})`);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new RangeError(`--queue-name must be 1-64 letters, digits, '-' or '_' (got ${JSON.stringify(name)})`);
  const port = u.port === '' ? 6379 : Number(u.port);
  return {
    display: `${u.protocol}//${u.hostname}:${port}/${db || '0'}`,
    name,
    connection: {
      host: u.hostname,
      port,
      db: db === '' ? 0 : Number(db),
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
      // Workers block on Redis; bullmq requires commands to wait for a reconnect rather than fail.
      maxRetriesPerRequest: null,
    },
  };
}

/** Imports bullmq and ioredis now (optional peers): a command that needs them fails before it makes a file, not after. */
export async function loadQueueLibraries(): Promise<void> {
  await Promise.all([import('bullmq'), import('ioredis')]);
}

/**
 * A plain Redis connection for powprime's own keys (presence), opened first:
 * a wrong address fails within seconds with a clear error instead of
 * retrying forever. Later outages are reported through `onNotice` once each
 * (ioredis reconnects by itself, and so do the queue objects). An abort of
 * `signal` ends the wait at once, with the signal's reason.
 */
export async function openRedis(target: QueueTarget, onNotice: (message: string) => void, signal?: AbortSignal): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis({ ...(target.connection as RedisOptions), lazyConnect: true });
  let lastError = 'no answer';
  let connected = false;
  let down = false;
  redis.on('error', (err: Error) => {
    // ioredis's words for a server that answered but not in Redis's protocol (an HTTP port): say that, not "Please report this".
    lastError = /^Unknown RESP type/.test(err.message) ? `the server there does not speak Redis's protocol (${err.message.replace(/\. Please report this\.?$/, '')})` : err.message;
    if (connected && !down) onNotice(`lost the connection to ${target.display} (${err.message}); retrying`);
    if (connected) down = true;
  });
  redis.on('ready', () => {
    if (down) onNotice(`connected to ${target.display} again`);
    down = false;
  });
  let timer: NodeJS.Timeout | undefined;
  const db = (target.connection as RedisOptions).db ?? 0;
  try {
    const connecting = Promise.race([
      (async () => {
        await redis.connect();
        // ioredis selects the database as it connects, and a failed SELECT
        // only reaches its error event: a database the server does not have
        // would leave this run on database 0, among another project's jobs.
        if (db !== 0) await redis.select(db);
      })(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new QueueUnreachableError(target.display, lastError)), CONNECT_TIMEOUT_MS);
      }),
    ]);
    await untilAborted(connecting, signal);
  } catch (err) {
    redis.disconnect();
    if (signal?.aborted) throw abortReason(signal);
    if (/DB index is out of range|invalid DB index/i.test((err as Error).message)) {
      throw new RangeError(`--queue database ${db} cannot be used on ${target.display}: ${(err as Error).message}`);
    }
    // The socket's own error (ECONNREFUSED, ENOTFOUND) says more than ioredis's "Connection is closed".
    throw err instanceof QueueUnreachableError ? err : new QueueUnreachableError(target.display, lastError !== 'no answer' ? lastError : (err as Error).message);
  } finally {
    clearTimeout(timer);
  }
  connected = true;
  return redis;
}

/**
 * `work`, or the signal's reason as soon as it aborts: a queue command waits
 * for Redis to come back for ever (maxRetriesPerRequest: null), so a stop
 * must not wait for it.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  let onAbort = (): void => {};
  // Raced even when already aborted, so a later rejection of `work` is handled.
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortReason(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

type ErrorEmitter = { on(event: 'error', listener: (err: Error) => void): unknown };

/**
 * A bullmq Queue's 'error' events are its connections' (Redis lost, or
 * refused at connect): each call made on the queue waits for the reconnect
 * (maxRetriesPerRequest: null) or rejects to its awaiter with the same error,
 * and an outage is reported by the openRedis connection beside it. So they
 * are ignored, only so as not to end the process.
 */
export function ignoreQueueErrors(queue: ErrorEmitter): void {
  ignoreErrorEvents(queue, "a queue's errors reach the awaiters of its calls, and an outage is reported by openRedis's connection");
}

/** A failure the worker repeats (a lock it keeps failing to renew, every half lock period) is said once in this long. */
const REPEATED_NOTICE_MS = 60_000;

/**
 * A bullmq Worker's 'error' events: its connections' errors, ignored as a
 * Queue's are (openRedis's connection to the same Redis reports an outage,
 * once), and failures of the worker's own loop that reach no awaiter — a
 * job lock it could not renew (another worker may run the job again), the
 * stalled-job check or a job's move to done failing in Redis — which go to
 * `onNotice`, one line each, after `what`. The same words again within
 * `quietMs` are only counted, and the count is said with them next time, so
 * an hours-long run's log is not one line every few seconds.
 */
export function noticeWorkerErrors(worker: ErrorEmitter, what: string, onNotice: (message: string) => void, quietMs = REPEATED_NOTICE_MS): void {
  const said = new Map<string, { at: number; unsaid: number }>();
  worker.on('error', (err) => {
    if (isConnectionError(err)) return;
    const now = Date.now();
    const words = plainWords(err.message);
    const last = said.get(words);
    if (last && now - last.at < quietMs) {
      last.unsaid++;
      return;
    }
    const again = last?.unsaid ? ` (${last.unsaid} more times since the last notice)` : '';
    // Only the words said within the quiet period are kept: the map stays small however long the run.
    for (const [m, e] of said) if (now - e.at >= quietMs) said.delete(m);
    said.set(words, { at: now, unsaid: 0 });
    onNotice(`${what}: ${words}${again}`);
  });
}

/**
 * bullmq's words for a job gone from Redis under a worker that ran it ("Missing lock for job X.
 * moveToFinished", then again for moveToDelayed): said as what happened, once for both.
 */
function plainWords(message: string): string {
  const lost = /^Missing lock for job (.+)\. \w+$/.exec(message);
  return lost ? `job ${lost[1]} vanished from Redis while it ran (Redis emptied or restarted), so its result was not recorded there` : message;
}

/**
 * bullmq's own test (isNotConnectionError: "Connection is closed." or
 * ECONNREFUSED), widened to every socket and DNS error Node raises (they
 * name the call that failed: connect, read, write, getaddrinfo).
 */
function isConnectionError(err: Error): boolean {
  const { code, syscall } = err as NodeJS.ErrnoException;
  return typeof syscall === 'string' || code === 'ECONNREFUSED' || err.message === 'Connection is closed.' || err.message.includes('ECONNREFUSED');
}
