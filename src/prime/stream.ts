/**
 * Where prime number `index` of a seeded search starts, and the order its
 * candidates are visited in. Both backends share this file, so their
 * results are the same bit for bit. Two versions exist; a search names the
 * one it runs, and files and queue jobs record it, so a stream is never mixed.
 *
 * Version 1, start(bits, seed, index): SHA-256 in counter mode over
 *   "powprime/safe-prime/v1" ‖ be16(bits) ‖ seed (32 bytes, big-endian) ‖ be64(index) ‖ be32(block)
 * for block = 0, 1, …; the first ceil(bits/8) bytes, as a big-endian number,
 * keep their top `bits` bits and get the top two set (so p stays in
 * [3·2^(bits−2), 2^bits)).
 *
 * Candidates: every p ≡ 11 (mod 12) in [lo, 2^bits), where lo is the least
 * such p at or above 3·2^(bits−2) — safe primes above 7 are all ≡ 11 mod 12.
 * They are visited upward from the first one at or above start, then wrap
 * around to lo. Prime `index` is the first safe prime in that order: the
 * least safe prime at or above start, if there is one below 2^bits.
 *
 * Version 2 keeps the candidates and the visiting rule and changes only the
 * start: the seed picks a base position c = X mod count, X the first
 * ceil(bits/8) + 16 bytes of SHA-256 in counter mode over
 *   "powprime/safe-prime/v2" ‖ be16(bits) ‖ seed (32 bytes) ‖ be32(block)
 * (16 bytes more than needed, so the reduction's bias is negligible), and
 * index i starts at position (c + M·i) mod count with M = 4·bits². Why: a
 * deep sieve's cost is each start's residue modulo every sieve prime; when
 * starts form a progression, one index's residues are another's shifted by
 * a constant (native/bignum/safe_prime_sieve.h), which makes a deeper sieve
 * pay. M is about 64 mean gaps between safe primes, so two indexes share a
 * prime only with probability about e^−64 while the indexes do not crowd the
 * range (indexesCrowd: at small sizes they wrap around among each other).
 */
import { sha256 } from '../hash/sha256.ts';
import { fromBytes } from './bigint.ts';

const DOMAIN = new TextEncoder().encode('powprime/safe-prime/v1');
const DOMAIN_V2 = new TextEncoder().encode('powprime/safe-prime/v2');

/** Which start rule a search runs (see the header). */
export type StreamVersion = 1 | 2;
/** The version new searches run. */
export const LATEST_STREAM: StreamVersion = 2;

/** The spacing of version 2's start positions, in candidates. */
export function spacing(bits: number): bigint {
  return 4n * BigInt(bits) * BigInt(bits);
}

/** Version 2's base position X of the header (before the reduction mod count). */
function baseNumber(bits: number, seed: bigint): bigint {
  const bytes = Math.ceil(bits / 8) + 16;
  const out = new Uint8Array(Math.ceil(bytes / 32) * 32);
  const msg = new Uint8Array(DOMAIN_V2.length + 2 + 32 + 4);
  const view = new DataView(msg.buffer);
  msg.set(DOMAIN_V2);
  view.setUint16(DOMAIN_V2.length, bits);
  msg.set(Buffer.from(seed.toString(16).padStart(64, '0'), 'hex'), DOMAIN_V2.length + 2);
  for (let block = 0; block * 32 < bytes; block++) {
    view.setUint32(DOMAIN_V2.length + 34, block);
    out.set(sha256(msg), block * 32);
  }
  return fromBytes(out.subarray(0, bytes));
}

export interface Stream {
  bits: number;
  /** First candidate of the range (≡ 11 mod 12). */
  lo: bigint;
  /** Number of candidates in [lo, 2^bits). */
  count: bigint;
  /** Position (0 ≤ first < count) of the first candidate visited. */
  first: bigint;
}

export function startPoint(bits: number, seed: bigint, index: bigint): bigint {
  const bytes = Math.ceil(bits / 8);
  const out = new Uint8Array(Math.ceil(bytes / 32) * 32);
  const msg = new Uint8Array(DOMAIN.length + 2 + 32 + 8 + 4);
  const view = new DataView(msg.buffer);
  msg.set(DOMAIN);
  view.setUint16(DOMAIN.length, bits);
  const seedHex = seed.toString(16).padStart(64, '0');
  msg.set(Buffer.from(seedHex, 'hex'), DOMAIN.length + 2);
  view.setBigUint64(DOMAIN.length + 34, index);
  for (let block = 0; block * 32 < bytes; block++) {
    view.setUint32(DOMAIN.length + 42, block);
    out.set(sha256(msg), block * 32);
  }
  const x = fromBytes(out.subarray(0, bytes)) >> BigInt(bytes * 8 - bits);
  return x | (3n << BigInt(bits - 2));
}

/** The first candidate of a `bits`-bit range, and how many it holds (see the header). */
function candidates(bits: number): { lo: bigint; count: bigint } {
  const top = 1n << BigInt(bits);
  const floor = 3n << BigInt(bits - 2);
  const lo = floor + ((11n - (floor % 12n) + 12n) % 12n);
  return { lo, count: (top - 1n - lo) / 12n + 1n };
}

/**
 * Whether indexes below `indexes` crowd a `bits`-bit range so that near ones
 * may give the same prime: each index has about M = 4·bits² candidates to
 * itself (version 2's spacing; version 1's random starts are as dense), and
 * past the range's candidates starts wrap around among each other. Only at
 * small sizes: a million indexes crowd the range below about 40 bits.
 */
export function indexesCrowd(bits: number, indexes: bigint): boolean {
  return indexes * spacing(bits) > candidates(bits).count;
}

export function stream(bits: number, seed: bigint, index: bigint, version: StreamVersion): Stream {
  const top = 1n << BigInt(bits);
  const { lo, count } = candidates(bits);
  if (version === 2) return { bits, lo, count, first: ((baseNumber(bits, seed) % count) + spacing(bits) * index) % count };
  const s = startPoint(bits, seed, index);
  const firstAtOrAbove = s + ((11n - (s % 12n) + 12n) % 12n);
  const first = firstAtOrAbove < top ? (firstAtOrAbove - lo) / 12n : 0n;
  return { bits, lo, count, first };
}

/** The candidate at position `pos` (0 ≤ pos < count) of the range. */
export function candidateAt(st: Stream, pos: bigint): bigint {
  return st.lo + 12n * pos;
}

/**
 * How many candidates after the index's first one `p` comes, in visiting
 * order (so the index's prime, if p is it); null when p is no candidate of
 * the range. On version 2 an index's prime lies within spacing(bits) of its
 * start but with probability about e^−64, so a larger distance says the
 * prime belongs to another index, or another run.
 */
export function distanceFromStart(st: Stream, p: bigint): bigint | null {
  if (p < st.lo || p >= 1n << BigInt(st.bits) || (p - st.lo) % 12n !== 0n) return null;
  const pos = (p - st.lo) / 12n;
  return (pos - st.first + st.count) % st.count;
}
