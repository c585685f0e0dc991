/**
 * Who is working on a queue, kept in Redis beside the queue's own keys:
 * each worker and coordinator rewrites its entry every couple of seconds, and
 * readers drop entries older than STALE_MS (a process killed with -9 simply
 * stops refreshing), and at once those of this host whose process is gone,
 * so a worker killed here is not listed for the seconds it takes to go stale.
 * One hash per kind, one field per process.
 */
import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';

export const REFRESH_MS = 2_000;
const STALE_MS = 10_000;

/**
 * The pid namespace this process sees (Linux), so a pid is only judged where it
 * means the same process: a container on the host network shares the host's
 * name but not its pids. Empty where unknown, and then no pid is judged.
 */
function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

/** This process on a queue: host, pid namespace, pid and a random tag (a pid is reused after a restart). */
export function processIdentity(): { id: string; host: string; pidNs: string; pid: number } {
  return { id: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`, host: hostname(), pidNs: pidNamespace(), pid: process.pid };
}

export interface WorkerPresence {
  id: string;
  host: string;
  /** Absent in entries of older versions: their pid is then not judged. */
  pidNs?: string;
  pid: number;
  threads: number;
  concurrency: number;
  backend: string;
  /** Chunks finished, and candidates sieved per second over the last minute. */
  chunks: number;
  rate: number;
  seen: number;
}

export interface CoordinatorPresence {
  id: string;
  host: string;
  /** Absent in entries of older versions: their pid is then not judged. */
  pidNs?: string;
  pid: number;
  bits: number;
  seed: string;
  done: number;
  count: number;
  inflight: number;
  seen: number;
}

type Kind = 'workers' | 'coordinators';

/** Beside the queue's keys (bullmq's default prefix), so deleting a queue's keys deletes these too. */
function key(queueName: string, kind: Kind): string {
  return `bull:${queueName}:powprime-${kind}`;
}

export async function publish(redis: Redis, queueName: string, kind: Kind, entry: WorkerPresence | CoordinatorPresence): Promise<void> {
  await redis.hset(key(queueName, kind), entry.id, JSON.stringify(entry));
}

export async function withdraw(redis: Redis, queueName: string, kind: Kind, id: string): Promise<void> {
  await redis.hdel(key(queueName, kind), id);
}

/** Live entries; stale ones are deleted on the way. */
export async function live<T extends WorkerPresence | CoordinatorPresence>(redis: Redis, queueName: string, kind: Kind, now = Date.now()): Promise<T[]> {
  const all = await redis.hgetall(key(queueName, kind));
  const out: T[] = [];
  for (const [id, text] of Object.entries(all)) {
    let e: T | null = null;
    try {
      e = JSON.parse(text) as T;
    } catch {
      // Not ours or torn: treated as stale.
    }
    if (e && typeof e.seen === 'number' && now - e.seen < STALE_MS && !goneHere(e)) out.push(e);
    else await redis.hdel(key(queueName, kind), id);
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** An entry of this host and pid namespace whose pid no longer runs (EPERM: it runs, as another user). */
function goneHere(e: { host?: unknown; pidNs?: unknown; pid?: unknown }): boolean {
  const ns = pidNamespace();
  if (e.host !== hostname() || ns === '' || e.pidNs !== ns || typeof e.pid !== 'number' || !Number.isInteger(e.pid) || e.pid <= 0) return false;
  try {
    process.kill(e.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
