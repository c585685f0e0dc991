/**
 * A private HTTP cache that follows the routes' Cache-Control / Expires
 * (http-cache-semantics), keyed by method, URL and request body (the `page`
 * and `answers` routes are GETs with bodies). Consulted before a rate-limit
 * slot is spent. Entries live in memory and, with a folder, on disk, and go
 * once stale: this cache never revalidates, so a stale entry serves nothing,
 * and a `question run` of weeks must not grow either (MEMORY_ENTRIES; the
 * folder swept at most once an hour, SWEEP_EVERY_MS).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import CachePolicy from 'http-cache-semantics';
import type { Clock } from '../clock.ts';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import { readJsonState } from './state-file.ts';
import type { HttpResponse } from './transport.ts';
import { isLeftoverTemporary } from './folder-sweep.ts';

export interface CacheRequest {
  method: 'GET' | 'POST';
  url: URL;
  json?: unknown;
}

interface Entry {
  policy: CachePolicy.CachePolicyObject;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string; // base64
}

function policyClass(clock: Clock): typeof CachePolicy {
  // http-cache-semantics reads the time through this method: give it ours.
  // (A method of the implementation, missing from its type declarations.)
  return class extends CachePolicy {
    now(): number {
      return clock.now();
    }
  };
}

function asPolicyRequest(req: CacheRequest): CachePolicy.Request {
  return { url: req.url.pathname + req.url.search, method: req.method, headers: { host: req.url.host } };
}

/** Entries kept in memory at most, the least recently stored going first: the folder holds the rest. */
const MEMORY_ENTRIES = 256;
/** How often put() sweeps the folder for stale entries. */
const SWEEP_EVERY_MS = 3_600_000;

export class ResponseCache {
  private readonly memory = new Map<string, Entry>();
  private readonly Policy: typeof CachePolicy;
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly dir?: string,
  ) {
    this.Policy = policyClass(clock);
  }

  key(req: CacheRequest): string {
    const body = req.json === undefined ? '' : JSON.stringify(req.json);
    return createHash('sha256').update(`${req.method} ${req.url.href}\n${body}`).digest('hex');
  }

  /** A stored response still fresh for this request, or null. */
  get(req: CacheRequest): HttpResponse | null {
    const k = this.key(req);
    let entry = this.memory.get(k);
    // A stale copy here may be fresh on disk: another process stored it since.
    if (entry && this.stale(entry)) {
      this.memory.delete(k);
      entry = undefined;
    }
    entry ??= this.load(k);
    if (!entry) return null;
    const policy = this.Policy.fromObject(entry.policy);
    if (policy.timeToLive() <= 0) {
      this.forget(k);
      return null;
    }
    if (!policy.satisfiesWithoutRevalidation(asPolicyRequest(req))) return null;
    return { status: entry.status, headers: entry.headers, body: Buffer.from(entry.body, 'base64') };
  }

  /**
   * How long a private cache may keep `res` by its own headers (0: not at all),
   * or null when it carries no caching headers at all (the caller's default applies).
   */
  freshFor(req: CacheRequest, res: HttpResponse): number | null {
    if (res.headers['cache-control'] === undefined && res.headers.expires === undefined) return null;
    const policy = new this.Policy(asPolicyRequest(req), { status: res.status, headers: res.headers as CachePolicy.Headers }, { shared: false });
    return policy.storable() ? Math.max(0, policy.timeToLive()) : 0;
  }

  /** Stores a response if its headers allow a private cache to. */
  put(req: CacheRequest, res: HttpResponse): void {
    const policy = new this.Policy(asPolicyRequest(req), { status: res.status, headers: res.headers as CachePolicy.Headers }, { shared: false });
    if (!policy.storable() || policy.timeToLive() <= 0) return;
    const entry: Entry = { policy: policy.toObject(), status: res.status, headers: res.headers, body: res.body.toString('base64') };
    const k = this.key(req);
    this.remember(k, entry);
    if (this.dir) {
      writeFileAtomic(path.join(this.dir, `${k}.json`), JSON.stringify(entry));
      if (this.clock.now() - this.lastSweep >= SWEEP_EVERY_MS) this.sweep();
    }
  }

  /** Entries in memory, newest last; past MEMORY_ENTRIES the oldest is dropped (the folder still has it). */
  private remember(k: string, entry: Entry): void {
    this.memory.delete(k);
    this.memory.set(k, entry);
    if (this.memory.size > MEMORY_ENTRIES) this.memory.delete(this.memory.keys().next().value!);
  }

  private stale(entry: Entry): boolean {
    return this.Policy.fromObject(entry.policy).timeToLive() <= 0;
  }

  /** Drops entry k where it is stale: from memory, and its file if what the file holds now is stale (another process may have just stored a fresh one). */
  private forget(k: string): void {
    const inMemory = this.memory.get(k);
    if (inMemory && this.stale(inMemory)) this.memory.delete(k);
    if (!this.dir) return;
    const file = path.join(this.dir, `${k}.json`);
    let onDisk: unknown;
    try {
      onDisk = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return; // gone already, or being written: its next reader decides
    }
    if (this.entryProblem(onDisk) === undefined && this.stale(onDisk as Entry)) rmSync(file, { force: true });
  }

  /**
   * Removes the folder's stale entries, and temporaries a crash left. Another process may be writing one
   * as this reads it: a file that does not parse is left for its next reader
   * to set aside, and one removed meanwhile is just gone.
   */
  private sweep(): void {
    this.lastSweep = this.clock.now();
    let names: string[];
    try {
      names = readdirSync(this.dir!);
    } catch {
      return;
    }
    for (const name of names) {
      if (/^[0-9a-f]{64}\.json$/.test(name)) this.forget(name.slice(0, -5));
      else if (isLeftoverTemporary(this.dir!, name)) rmSync(path.join(this.dir!, name), { force: true });
    }
  }

  /** A cache file's shape: a policy the library takes back, a status, headers, a base64 body. */
  private entryProblem(x: unknown): string | undefined {
    const e = x as Partial<Entry> | null;
    if (e === null || typeof e !== 'object' || Array.isArray(e)) return 'is not a cache entry';
    if (!Number.isInteger(e.status) || typeof e.body !== 'string' || e.headers === null || typeof e.headers !== 'object') return 'is a cache entry of the wrong shape';
    try {
      this.Policy.fromObject(e.policy as CachePolicy.CachePolicyObject);
    } catch {
      return 'holds a cache policy that cannot be read';
    }
    return undefined;
  }

  private load(k: string): Entry | undefined {
    if (!this.dir) return undefined;
    const file = path.join(this.dir, `${k}.json`);
    // One file per entry, written whole: no other process's update can be lost, so no lock.
    const entry = readJsonState(file, 'set-aside', (x) => this.entryProblem(x)) as Entry | undefined;
    if (entry) this.remember(k, entry);
    return entry;
  }
}
