/**
 * Client-side rate limits that never earn a ban. Every window the spec gives
 * for a route (e.g. 1/min, 8/hour, 16/day) is enforced with a safety margin
 * (the spec suggests sleeping 1.1× the limit), a call is recorded — and the
 * record saved atomically — before it is sent, so a restart never spends the
 * same budget twice (and moved to the call's end once it has ended), and a 429 bans the whole host until its Retry-After (or
 * the spec's 40–60 minutes: 60 are assumed), capped at a day: a server's
 * absurd value (or a hand-edited state file) must not lock a host out for
 * years or reach a date no calendar holds.
 *
 * Several processes may share one state file (`question run` beside
 * `question ask`, two scripts on one state dir): the file is the record, and
 * every decision to call, refund or ban is made on what it holds now, under
 * its lock, so two processes never spend the same slot.
 */
import path from 'node:path';
import { type Clock, formatPeriod, isoTime } from '../clock.ts';
import { MAX_BAN_MS } from './retry-after.ts';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import { readJsonState, type ShapeCheck } from './state-file.ts';
import { RateLimitWaitError } from '../errors.ts';
import { lockWaitSync } from '../../fs/lock-wait.ts';
import { makeFolderSync } from '../../fs/make-folder.ts';

export interface Window {
  /** Calls allowed per period. */
  limit: number;
  periodMs: number;
}

export type Limits = Record<string, Window[]>;

interface State {
  calls: Record<string, number[]>;
  bannedUntil: number;
  /** The route whose 429 started the ban (the whole host is banned, whatever route waits). */
  bannedBy?: string;
}

export interface AcquireOptions {
  signal?: AbortSignal;
  /** Longest wait accepted before RateLimitWaitError (default: no bound). */
  maxWaitMs?: number;
  /** Told before each wait: when the call will go out, and why it waits. */
  onWait?: (until: number, route: string, reason: string) => void;
  /**
   * Run before each wait (after maxWaitMs accepted it, before onWait): a
   * rejection ends the call instead of the wait (the service clients probe
   * the host here, so one that is down is said at once, not after the wait).
   */
  beforeWait?: (until: number, route: string) => Promise<void>;
}

export class RateLimiter {
  private state: State = { calls: {}, bannedUntil: 0 };

  constructor(
    private readonly limits: Limits | 'off',
    private readonly clock: Clock,
    private readonly file?: string,
    /** Periods are stretched by this factor. */
    private readonly safety = 1.1,
    /**
     * Only read `file` (a state dir this process cannot write: ServiceClientOptions.readOnlyState):
     * it is read once, here, without the lock, and this process's calls and bans are kept in memory.
     * No lock is needed to read: the file is only ever replaced whole (writeFileAtomic renames a
     * complete file over it), so a reader sees one whole version, old or new; the lock orders
     * read-modify-write cycles, and a reader that writes nothing has none. Its own calls go
     * unrecorded for other processes, which in a folder this user cannot write record nothing
     * there either; a ban they recorded before is honoured.
     */
    private readonly readOnly = false,
  ) {
    if (file) this.state = readOnly ? this.loadReadOnly(file) : this.load(file);
  }

  /** load() where nothing may be written: a corrupt record, which load() would set aside (a rename), counts as none. */
  private loadReadOnly(file: string): State {
    try {
      return this.load(file);
    } catch (err) {
      if (!['EACCES', 'EPERM', 'EROFS'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
      return { calls: {}, bannedUntil: 0 };
    }
  }

  private load(file: string): State {
    const saved = readJsonState(file, 'set-aside', stateShape) as State | undefined;
    return saved ? clamped(saved, this.clock.now()) : { calls: {}, bannedUntil: 0 };
  }

  /**
   * Runs `change` on the state as the file holds it now, under the file's
   * lock (held for milliseconds), and saves it when `change` says it changed
   * something; without a file, on this process's state.
   */
  private update<T>(change: (state: State) => { result: T; changed: boolean }): T {
    if (!this.file || this.readOnly) return change(this.state).result;
    makeFolderSync(path.dirname(this.file), 0o700);
    const lockFile = `${this.file}.lock`;
    const lock = lockWaitSync(lockFile, this.file, 10_000);
    try {
      this.state = this.load(this.file);
      const { result, changed } = change(this.state);
      if (changed) writeFileAtomic(this.file, JSON.stringify(this.state));
      return result;
    } finally {
      lock.release();
    }
  }

  /** When `route` may next be called (ms since the epoch; now if at once). */
  nextSlot(route: string): number {
    const now = this.clock.now();
    let at = Math.max(now, this.state.bannedUntil);
    if (this.limits === 'off') return at;
    const calls = this.state.calls[route] ?? [];
    for (const w of this.limits[route] ?? []) {
      if (calls.length >= w.limit) at = Math.max(at, calls[calls.length - w.limit]! + Math.ceil(w.periodMs * this.safety));
    }
    return at;
  }

  /** nextSlot() on the record as the file holds it now: slots and bans other processes took since this one last looked. */
  freshSlot(route: string): number {
    return this.update(() => ({ result: this.nextSlot(route), changed: false }));
  }

  /** Why `route` cannot go out now: the host ban (and which route earned it), or which of its own limits. */
  waitReason(route: string): string {
    const at = this.nextSlot(route);
    if (at === this.state.bannedUntil && at > this.clock.now()) {
      return `the host is banned until ${isoTime(at)} after a 429 on ${this.state.bannedBy ?? 'an earlier call'}`;
    }
    const w = this.limits === 'off' ? undefined : (this.limits[route] ?? []).find((x) => (this.state.calls[route] ?? []).length >= x.limit);
    return `the ${route} limit${w ? ` of ${w.limit} per ${formatPeriod(w.periodMs)}` : ''} is used up until ${isoTime(at)}`;
  }

  /** Waits for a slot of `route`, then records the call (saved before returning); returns the instant recorded. */
  acquire(route: string, opts: AcquireOptions = {}): Promise<number> {
    return this.waitForSlot(route, opts, true);
  }

  /**
   * Waits until `route` has a slot, without taking it: for a caller that must
   * not hold something perishable while it waits (a proof-of-work token lives
   * 16 minutes; the query route's slot may be a day away).
   */
  async awaitSlot(route: string, opts: AcquireOptions = {}): Promise<void> {
    await this.waitForSlot(route, opts, false);
  }

  private async waitForSlot(route: string, opts: AcquireOptions, take: boolean): Promise<number> {
    for (;;) {
      // The slot is found (and taken) in one step under the lock: another
      // process cannot take it between the look and the record.
      const taken = this.update<{ at: number; now: number | null }>((state) => {
        const at = this.nextSlot(route);
        const now = this.clock.now();
        if (at > now) return { result: { at, now: null }, changed: false };
        if (!take) return { result: { at, now }, changed: false };
        const longest = this.limits === 'off' ? 0 : Math.max(0, ...(this.limits[route] ?? []).map((w) => w.periodMs * this.safety));
        const calls = (state.calls[route] ?? []).filter((t) => t > now - longest);
        calls.push(now);
        state.calls[route] = calls;
        return { result: { at, now }, changed: true };
      });
      if (taken.now !== null) return taken.now;
      const wait = taken.at - this.clock.now();
      if (opts.maxWaitMs !== undefined && wait > opts.maxWaitMs) {
        throw new RateLimitWaitError(route, taken.at, `${this.waitReason(route)}, longer than the ${Math.round(opts.maxWaitMs / 1000)} s allowed`);
      }
      await opts.beforeWait?.(taken.at, route);
      opts.onWait?.(taken.at, route, this.waitReason(route));
      await this.clock.sleep(Math.max(0, taken.at - this.clock.now()), opts.signal);
    }
  }

  /**
   * Moves the call recorded at `at` to now, when its request has ended: the
   * service counted it somewhere between the two, and a request slowed on its
   * way (a first connection) would otherwise be counted later than recorded,
   * so the next call, spaced from the record, could land inside its window
   * (a record pruned meanwhile is made again). Best effort: the answer must
   * reach the caller, so a record that cannot be saved keeps its instant.
   */
  settle(route: string, at: number): void {
    try {
      this.update((state) => {
        const now = this.clock.now();
        if (now <= at) return { result: undefined, changed: false };
        const calls = state.calls[route] ?? [];
        const i = calls.lastIndexOf(at);
        if (i >= 0) calls[i] = now;
        else calls.push(now);
        state.calls[route] = calls.sort((x, y) => x - y);
        return { result: undefined, changed: true };
      });
    } catch {
      // Kept as recorded when sent (see above).
    }
  }

  /** Takes back the call recorded at `at` for a request that never left this machine (the service cannot have counted it). */
  refund(route: string, at: number): void {
    this.update((state) => {
      const calls = state.calls[route];
      const i = calls?.lastIndexOf(at) ?? -1;
      if (i >= 0) calls!.splice(i, 1);
      return { result: undefined, changed: i >= 0 };
    });
  }

  /** After a 429 on `route`: nothing goes to the host before `until` (at most MAX_BAN_MS from now). */
  ban(until: number, route: string): void {
    until = Math.min(until, this.clock.now() + MAX_BAN_MS);
    this.update((state) => {
      if (until <= state.bannedUntil) return { result: undefined, changed: false };
      state.bannedUntil = until;
      state.bannedBy = route;
      return { result: undefined, changed: true };
    });
  }
}

/** What a saved limiter state must look like; anything else is set aside. */
const stateShape: ShapeCheck = (v) => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'is not a JSON object';
  const s = v as Record<string, unknown>;
  if (typeof s.bannedUntil !== 'number' || !Number.isFinite(s.bannedUntil)) return 'has no finite bannedUntil';
  if (s.bannedBy !== undefined && typeof s.bannedBy !== 'string') return 'has a bannedBy that is not a string';
  if (s.calls === null || typeof s.calls !== 'object' || Array.isArray(s.calls)) return 'has no calls object';
  for (const [route, times] of Object.entries(s.calls as Record<string, unknown>)) {
    if (!Array.isArray(times) || !times.every((t) => typeof t === 'number' && Number.isFinite(t))) return `has calls of ${route} that are not a list of instants`;
  }
  return undefined;
};

/**
 * A saved state brought within today's bounds: a ban longer than MAX_BAN_MS
 * (saved before the cap, or edited by hand) ends MAX_BAN_MS from now, and
 * calls recorded in the future (the clock went back) count as made now.
 */
function clamped(s: State, now: number): State {
  const calls: Record<string, number[]> = {};
  for (const [route, times] of Object.entries(s.calls)) calls[route] = times.map((t) => Math.min(t, now));
  return { ...s, calls, bannedUntil: Math.min(s.bannedUntil, now + MAX_BAN_MS) };
}
