/**
 * Where verifySolution remembers the tokens already used, so each is good
 * for one request. A store must keep an entry at least until the token's
 * expiry (after that the expiry check refuses the token anyway) and must
 * never forget one sooner: a forgotten entry is a replay let through.
 */
import { ChallengeError } from './challenge-error.ts';
import { checkInteger } from '../validate.ts';
import { checkOptions, optionNames } from '../option-checks.ts';

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
const MEMORY_REPLAY_STORE_OPTIONS = optionNames<MemoryReplayStoreOptions>()(['maxEntries']);

const DEFAULT_MAX_REPLAY_ENTRIES = 100_000;

/**
 * The used tokens of one process: a Map for the lookup and a min-heap of
 * expiries, so dropping what has expired costs O(log n) an entry whatever
 * order tokens come in (an attacker holding tokens back and sending the
 * newest first cannot make each add scan the store). When every entry is
 * still unexpired and the store is full, a new token is refused ('busy',
 * transient) rather than an old entry forgotten, which would let that token
 * be used again: size it above the tokens a lifetime may bring (rate × TTL).
 * Holders of solved tokens can fill it only as fast as they solve; a service
 * of many processes shares a RedisReplayStore instead.
 */
export class MemoryReplayStore implements ReplayStore {
  readonly maxEntries: number;
  private readonly used = new Map<string, number>();
  /** Expiries with their ids, earliest first (a binary heap in two parallel arrays). */
  private readonly heapAt: number[] = [];
  private readonly heapId: string[] = [];
  /**
   * The latest clock seen. Entries are dropped against it, and a token whose
   * expiry it has passed is refused: if the verifier's clock steps back, an
   * entry dropped under the later time cannot let its token in again.
   */
  private latest = Number.NEGATIVE_INFINITY;

  constructor(options?: MemoryReplayStoreOptions) {
    const o = checkOptions('options', options, 'MemoryReplayStore', MEMORY_REPLAY_STORE_OPTIONS);
    this.maxEntries = o.maxEntries === undefined ? DEFAULT_MAX_REPLAY_ENTRIES : checkInteger('maxEntries', o.maxEntries, 1, 2 ** 24);
  }

  /** Tokens remembered now (expired ones included until they are dropped). */
  get size(): number {
    return this.used.size;
  }

  add(id: string, expiresAt: number, now: number): boolean {
    if (now > this.latest) this.latest = now;
    // Expired by the latest clock: its entry may already be gone, so it cannot be told from a replay.
    if (expiresAt <= this.latest || this.used.has(id)) return false;
    while (this.heapAt.length && this.heapAt[0]! <= this.latest) this.used.delete(this.pop());
    if (this.used.size >= this.maxEntries) throw new ChallengeError('busy', `the replay store holds ${this.maxEntries} unexpired tokens`);
    this.used.set(id, expiresAt);
    this.push(expiresAt, id);
    return true;
  }

  private push(at: number, id: string): void {
    const a = this.heapAt;
    const ids = this.heapId;
    let i = a.length;
    a.push(at);
    ids.push(id);
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (a[up]! <= at) break;
      a[i] = a[up]!;
      ids[i] = ids[up]!;
      i = up;
    }
    a[i] = at;
    ids[i] = id;
  }

  /** Removes the earliest expiry; returns its id. */
  private pop(): string {
    const a = this.heapAt;
    const ids = this.heapId;
    const top = ids[0]!;
    const at = a.pop()!;
    const id = ids.pop()!;
    const n = a.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && a[c + 1]! < a[c]!) c++;
      if (a[c]! >= at) break;
      a[i] = a[c]!;
      ids[i] = ids[c]!;
      i = c;
    }
    a[i] = at;
    ids[i] = id;
    return top;
  }
}
