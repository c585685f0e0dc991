/**
 * Where prime number `index` of a seeded search starts, and the order its
 * candidates are visited in. Both backends share this file, so their
 * results are the same bit for bit.
 *
 * start(bits, seed, index): SHA-256 in counter mode over
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
 */
import { sha256 } from '../hash/sha256.ts';
import { fromBytes } from './bigint.ts';

const DOMAIN = new TextEncoder().encode('powprime/safe-prime/v1');

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

export function stream(bits: number, seed: bigint, index: bigint): Stream {
  const top = 1n << BigInt(bits);
  const floor = 3n << BigInt(bits - 2);
  const lo = floor + ((11n - (floor % 12n) + 12n) % 12n);
  const count = (top - 1n - lo) / 12n + 1n;
  const s = startPoint(bits, seed, index);
  const firstAtOrAbove = s + ((11n - (s % 12n) + 12n) % 12n);
  const first = firstAtOrAbove < top ? (firstAtOrAbove - lo) / 12n : 0n;
  return { bits, lo, count, first };
}

/** The candidate at position `pos` (0 ≤ pos < count) of the range. */
export function candidateAt(st: Stream, pos: bigint): bigint {
  return st.lo + 12n * pos;
}
