/**
 * Where verifySolution remembers the tokens already used, so each is good
 * for one request. A store must keep an entry at least until the token's
 * expiry (after that the expiry check refuses the token anyway) and must
 * never forget one sooner: a forgotten entry is a replay let through.
 */
import { ChallengeError } from '../errors.ts';
import { checkInteger, checkOptions, optionNames } from '../validate.ts';

export interface ReplayStore {
  /**
   * Records token `id` as used until `expiresAt` (ms since the epoch; `now`
   * is the verifier's clock). Returns true when the id was new, false when
   * it was already recorded (a replay); may return a promise of that (a
   * shared store such as Redis). A store that cannot record the id throws
   * (ChallengeError 'busy', or anything, which becomes 'store-failed').
   */
  add(id: string, expiresAt: number, now: number): boolean | Promise<boolean>;
}

export interface MemoryReplayStoreOptions {
  /** Most tokens remembered at once (default 100,000: about 10 MB). */
  maxEntries?: number;
}

/** Every option of MemoryReplayStore: any other key is refused. */
export const MEMORY_REPLAY_STORE_OPTIONS = optionNames<MemoryReplayStoreOptions>()(['maxEntries']);

export const DEFAULT_MAX_REPLAY_ENTRIES = 100_000;

/**
 * The used tokens of one process, in a bounded Map. Expired entries are
 * dropped as new ones come; when every entry is still unexpired and the map
 * is full, a new token is refused ('busy', transient) rather than an old
 * entry forgotten, which would let that token be used again. Holders of
 * solved tokens can fill it only as fast as they solve; a service of many
 * processes shares a RedisReplayStore instead.
 */
export class MemoryReplayStore implements ReplayStore {
  readonly maxEntries: number;
  private readonly used = new Map<string, number>();
  /** No entry expires before this: a full store with nothing expired is refused without a scan. */
  private earliest = Number.POSITIVE_INFINITY;
  /** The oldest entry's expiry: until then dropOldest has nothing to drop, and is not run. */
  private nextDrop = Number.POSITIVE_INFINITY;

  constructor(options?: MemoryReplayStoreOptions) {
    const o = checkOptions('options', options, 'MemoryReplayStore', MEMORY_REPLAY_STORE_OPTIONS);
    this.maxEntries = o.maxEntries === undefined ? DEFAULT_MAX_REPLAY_ENTRIES : checkInteger('maxEntries', o.maxEntries, 1, 2 ** 24);
  }

  /** Tokens remembered now (expired ones included until they are dropped). */
  get size(): number {
    return this.used.size;
  }

  add(id: string, expiresAt: number, now: number): boolean {
    if (this.used.has(id)) return false;
    if (now >= this.nextDrop) this.dropOldest(now);
    if (this.used.size >= this.maxEntries) {
      this.sweep(now);
      if (this.used.size >= this.maxEntries) throw new ChallengeError('busy', `the replay store holds ${this.maxEntries} unexpired tokens`);
    }
    this.used.set(id, expiresAt);
    if (this.used.size === 1) this.nextDrop = expiresAt;
    if (expiresAt < this.earliest) this.earliest = expiresAt;
    return true;
  }

  /**
   * Drops expired entries from the oldest end (a Map keeps insertion order).
   * Tokens of one issuer share a lifetime, so they expire in that order and
   * this alone keeps the map to the tokens of the last lifetime.
   */
  private dropOldest(now: number): void {
    for (const [id, expiresAt] of this.used) {
      if (expiresAt > now) {
        this.nextDrop = expiresAt;
        return;
      }
      this.used.delete(id);
    }
    this.nextDrop = Number.POSITIVE_INFINITY;
  }

  /** Drops every expired entry: a full scan, run only when the map is full and some entry is known to have expired. */
  private sweep(now: number): void {
    if (now < this.earliest) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const [id, expiresAt] of this.used) {
      if (expiresAt <= now) this.used.delete(id);
      else if (expiresAt < earliest) earliest = expiresAt;
    }
    this.earliest = earliest;
    // The oldest entry may be gone: look again at the next add.
    this.nextDrop = Number.NEGATIVE_INFINITY;
  }
}
