/**
 * The TS twin of native/bignum/safe_prime_sieve.cc: candidates
 * p_j = start + 12·j, struck out when a small prime divides p or q = (p−1)/2,
 * survivors tested with base-2 Fermat on q, then on p, then the full test on q.
 * `keep` strikes one class of candidates too (Keep, as native/bignum's).
 * Sieve primes from DENSE_SIEVE_LIMIT up strike only the first deepWindow(bits)
 * candidates, as the native deep tier does (safe_prime_sieve.h says why), so
 * both strike the same candidates for the same limit.
 */
import { fermatBase2, isProbablePrimeJs } from './primality.ts';
import { sievePrimes } from './small-primes.ts';

/** Sieve primes below this strike every slice; above, only the deep window (kDenseSieveLimit). */
export const DENSE_SIEVE_LIMIT = 1 << 16;

/** Candidates from start the deep primes strike: bits²/2, from 2^16 to 2^25 (SafePrimeSieve::deep_window). */
export function deepWindow(bits: number): number {
  return Math.min(Math.max(Math.floor((bits * bits) / 2), 2 ** 16), 2 ** 25);
}

/**
 * Which candidates a sieve keeps besides those the sieve primes leave:
 * 'all'; '23mod24', p ≡ 23 (mod 24), where 2 generates the subgroup of order
 * q (dhparam); 'sshGenerator', p ≢ 119 (mod 120), the primes `ssh-keygen -M
 * screen` gives a generator (2 where p ≡ 11 mod 24, 5 where p mod 10 is 3 or 7).
 */
export type Keep = 'all' | '23mod24' | 'sshGenerator';

/** The native sieve's code of each Keep (bignum::Keep). */
export const KEEP_CODE: Record<Keep, 0 | 1 | 2> = { all: 0, '23mod24': 1, sshGenerator: 2 };

/** The class a Keep strikes: p ≡ c (mod m), with 12 | m. */
const STRUCK: Record<Exclude<Keep, 'all'>, { m: bigint; c: bigint }> = { '23mod24': { m: 24n, c: 11n }, sshGenerator: { m: 120n, c: 119n } };

export const KEEPS = Object.keys(KEEP_CODE) as Keep[];

/** Whether p is of the class `keep` keeps (for a number the search gave: p ≡ 11 mod 12). */
export function keeps(keep: Keep, p: bigint): boolean {
  return keep === 'all' || p % STRUCK[keep].m !== STRUCK[keep].c;
}

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
  /** j ≡ struckResidue (mod struckPeriod) is struck (Keep); period 0 strikes none. */
  private readonly struckPeriod: number = 0;
  private readonly struckResidue: number = 0;
  private closed = false;
  private readonly deepLimit: number;
  private readonly window: number;
  /** Bit j set: a deep prime divides p_j or q_j (j < window); built on first use. */
  private deep: Uint8Array | null = null;

  constructor(
    private readonly start: bigint,
    sieveLimit: number,
    private readonly rounds = -1,
    keep: Keep = 'all',
  ) {
    if (start % 12n !== 11n) throw new RangeError('start must be 11 modulo 12');
    if (keep !== 'all') {
      // p_j = start + 12·j ≡ c (mod m) for one residue of j modulo m/12: (c − start mod m)/12.
      const { m, c } = STRUCK[keep];
      this.struckPeriod = Number(m / 12n);
      this.struckResidue = Number((((c - (start % m)) % m) + m) % m) / 12;
    }
    const { primes, inv12 } = sievePrimes(Math.min(sieveLimit, DENSE_SIEVE_LIMIT));
    this.deepLimit = sieveLimit > DENSE_SIEVE_LIMIT ? sieveLimit : 0;
    this.window = deepWindow(start.toString(2).length);
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

  private strikeDeep(): Uint8Array {
    const deep = new Uint8Array(this.window);
    const { primes, inv12 } = sievePrimes(this.deepLimit);
    let k = primes.length;
    while (k > 0 && primes[k - 1]! >= DENSE_SIEVE_LIMIT) k--;
    for (; k < primes.length; k++) {
      const r = primes[k]!;
      const res = BigInt(r) - (this.start % BigInt(r));
      // Products pass 2^53 here (r·r for deep r): BigInt, not doubles.
      const t0 = Number((res * BigInt(inv12[k]!)) % BigInt(r));
      const t1 = Number(((res + 1n) * BigInt(inv12[k]!)) % BigInt(r));
      for (let j = t0; j < this.window; j += r) deep[j] = 1;
      for (let j = t1; j < this.window; j += r) deep[j] = 1;
    }
    return deep;
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
    const period = this.struckPeriod;
    if (period) for (let i = (this.struckResidue + period - (j0 % period)) % period; i < len; i += period) marks[i] = 1;
    if (this.deepLimit && j0 < this.window) {
      const deep = (this.deep ??= this.strikeDeep());
      for (let j = j0; j < Math.min(j1, this.window); j++) if (deep[j]) marks[j - j0] = 1;
    }
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
