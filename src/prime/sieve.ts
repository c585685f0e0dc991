/**
 * The TS twin of native/bignum/safe_prime_sieve.cc: candidates
 * p_j = start + 12·j, struck out when a small prime divides p or q = (p−1)/2,
 * survivors tested with base-2 Fermat on q, then on p, then the full test on q.
 * With `only23Mod24`, every other j (the p ≡ 11 mod 24) is struck too.
 */
import { fermatBase2, isProbablePrimeJs } from './primality.ts';
import { sievePrimes } from './small-primes.ts';

export interface SliceResult {
  /** Lowest j of the slice whose p_j is a safe prime, or null. */
  found: number | null;
  /** Candidates looked at. */
  sieved: number;
  /** Candidates that survived the sieve and got a Fermat test. */
  tested: number;
  /** The stop flag was seen: `found` means nothing. */
  stopped?: true;
}

export class SafePrimeSieveJs {
  private readonly primes: Uint32Array;
  private readonly t0: Uint32Array;
  private readonly t1: Uint32Array;
  /** 0 or 1: the parity of j whose p_j ≡ 11 (mod 24) is struck; -1 keeps both classes. */
  private readonly struckParity: number;
  private closed = false;

  constructor(
    private readonly start: bigint,
    sieveLimit: number,
    private readonly rounds = -1,
    only23Mod24 = false,
  ) {
    if (start % 12n !== 11n) throw new RangeError('start must be 11 modulo 12');
    // p_j = start + 12·j ≡ 23 (mod 24) exactly when j's parity is that of (start ≡ 11 mod 24).
    this.struckParity = only23Mod24 ? (start % 24n === 23n ? 1 : 0) : -1;
    const { primes, inv12 } = sievePrimes(sieveLimit);
    this.primes = primes;
    this.t0 = new Uint32Array(primes.length);
    this.t1 = new Uint32Array(primes.length);
    for (let k = 0; k < primes.length; k++) {
      const r = primes[k]!;
      const res = Number(start % BigInt(r));
      // Products stay below 2^53: r < 2^23.
      this.t0[k] = (((r - res) % r) * inv12[k]!) % r;
      this.t1[k] = (((1 + r - res) % r) * inv12[k]!) % r;
    }
  }

  /**
   * As the native sieve's close(), so both backends behave alike; the tables
   * here are typed arrays the JS engine already counts and collects.
   */
  close(): void {
    this.closed = true;
  }

  /** `stop`: a one-element shared flag, looked at between candidates (as the native sieve does). */
  search(j0: number, j1: number, stop?: BigUint64Array): SliceResult {
    if (this.closed) throw new Error('this SafePrimeSieve is closed: close() freed it, so it can no longer search');
    const len = j1 - j0;
    if (len <= 0) return { found: null, sieved: 0, tested: 0 };
    const marks = new Uint8Array(len);
    const { primes, t0, t1 } = this;
    for (let k = 0; k < primes.length; k++) {
      const r = primes[k]!;
      const m = j0 % r;
      for (let i = (t0[k]! + r - m) % r; i < len; i += r) marks[i] = 1;
      for (let i = (t1[k]! + r - m) % r; i < len; i += r) marks[i] = 1;
    }
    if (this.struckParity >= 0) for (let i = j0 % 2 === this.struckParity ? 0 : 1; i < len; i += 2) marks[i] = 1;
    let tested = 0;
    for (let i = 0; i < len; i++) {
      if (marks[i]) continue;
      if (stop && Atomics.load(stop, 0) !== 0n) return { found: null, sieved: len, tested, stopped: true };
      tested++;
      const p = this.start + 12n * BigInt(j0 + i);
      const q = p >> 1n;
      if (fermatBase2(q) && fermatBase2(p) && isProbablePrimeJs(q, this.rounds, false)) {
        return { found: j0 + i, sieved: len, tested };
      }
    }
    return { found: null, sieved: len, tested };
  }
}
