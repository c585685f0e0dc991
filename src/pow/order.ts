/**
 * The canonical candidate order: the one place that maps a counter k to the
 * digit string S_k tried for a nonce. Every backend (native SIMD, native
 * scalar, the TS kernel) and every thread count walks this order and returns
 * the lowest k that meets the difficulty, so they all return the same S.
 *
 * Rule. Let L be the nonce's length in bytes and r = L mod 64. S_k is k in
 * decimal, left-padded with '0' to a fixed width N = N(r). N is picked so
 * that the message nonce‖S ends at byte e of its final 64-byte block, where
 *   - e ≤ 55, so 0x80 and the 64-bit length still fit: one block, never two;
 *   - e mod 4 is 0 or 3: the last message word holds 4 digits (or 3 and the
 *     0x80 byte), so the fastest-changing digits fill one whole word and a
 *     group of 10^4 (or 10^3) consecutive candidates differs in that word only;
 *   - at least 12 digits of S fall in the final block, so 10^12 candidates
 *     change nothing before it; higher digits (if S starts in an earlier
 *     block) change once per 10^12 candidates and cost one extra compression
 *     then;
 *   - 1 ≤ N ≤ 32 (the service's limit).
 * Among those, e is the largest (the later the changing word, the more rounds
 * are computed once per group). k stops below min(10^N, 10^19).
 *
 * Worked examples (nonce length → N, e):
 *   - "abc" (L=3, r=3): e=55, N=52 > 32; e=52, N=49; … e=35, N=32 → S_0 is
 *     "000…0" (32 zeros), S_7 ends in "…0007"; all of S in the first block.
 *   - 43 bytes (r=43): e=55, N=12 → S_k is k as 12 digits, bytes 43..54.
 *   - 44 bytes (r=44): e=55 gives N=11 (too few digits), e=52 gives N=8, …,
 *     e=12 gives N=(12−44) mod 64 = 32: 20 digits finish the nonce's block
 *     and the last 12 open the next one; a naive suffix of 11+ digits would
 *     have spilled into a second compression per candidate.
 *   - 60 bytes (r=60): e=55 gives N=59; … e=28 gives N=32: 4 digits finish
 *     the nonce's block, 28 start the final one.
 *
 * Speed per layout. A kernel's work per candidate is the rounds from the
 * changing word F = ⌊(e−1)/4⌋ on (64−F−1) plus the schedule words that
 * depend on it, so a later e is cheaper: F runs from 2 (r = 44..46) to 13
 * (e = 52..55). Constant filler digits cannot move F later: F is bounded
 * by e, and e = r + N or r + N − 64 with N ≤ 32, so for r = 44..63 (and
 * 0..15) no N ≤ 32 that keeps 12 digits in the final block ends it later
 * than this rule does; filler after the changing word would only lengthen
 * the message. The spread between layouts is therefore the kernels' to
 * close, and the order is unchanged (one version so far).
 */

import { InternalError } from '../errors.ts';
import { MAX_SOLUTION_LENGTH } from '../limits.ts';
import { checkInteger, showNumber } from '../validate.ts';

/** Counters stop below 10^19 so that k fits the native kernels' 64-bit words. */
const COUNTER_DIGITS = 19;
/** Digits of S that must sit in the final block. */
const MIN_DIGITS_IN_BLOCK = 12;

export interface PowLayout {
  /** N: every candidate has exactly this many digits. */
  readonly width: number;
  /** e: the message ends at this byte of its final block. */
  readonly digitsEnd: number;
  /** How many low digits of S (and of k) lie in the final block. */
  readonly digitsInBlock: number;
  /** Bytes of nonce‖S before the final block (a multiple of 64). */
  readonly prefixLength: number;
  /** Counters exist from 0 up to (not including) this. */
  readonly limit: bigint;
}

/** Where the message may end in its final block, latest first. */
const ENDS = Array.from({ length: 56 }, (_, i) => 55 - i).filter((e) => e >= 3 && (e % 4 === 0 || e % 4 === 3));

export function powLayout(nonceLength: number): PowLayout {
  const r = checkInteger('nonceLength', nonceLength, 0, Number.MAX_SAFE_INTEGER) % 64;
  for (const e of ENDS) {
    const width = (((e - r) % 64) + 64) % 64;
    if (width === 0 || width > MAX_SOLUTION_LENGTH) continue;
    const digitsInBlock = Math.min(width, e);
    if (digitsInBlock < MIN_DIGITS_IN_BLOCK) continue;
    const digits = Math.min(width, COUNTER_DIGITS);
    return {
      width,
      digitsEnd: e,
      digitsInBlock,
      prefixLength: nonceLength + width - e,
      limit: 10n ** BigInt(digits),
    };
  }
  // powLayout is total over r = 0..63 (a test walks all of them).
  throw new InternalError(`no candidate layout for nonce length ${nonceLength}`);
}

/** S_k: k in decimal, left-padded with '0' to the layout's width. */
export function candidate(layout: PowLayout, k: bigint): string {
  const width = (layout as Partial<PowLayout> | null)?.width;
  if (typeof layout !== 'object' || typeof width !== 'number' || !Number.isInteger(width) || width < 1 || width > MAX_SOLUTION_LENGTH) {
    throw new TypeError('layout must be a PowLayout from powLayout()');
  }
  if (typeof k !== 'bigint') throw new TypeError(`k must be a bigint (got ${typeof k})`);
  if (k < 0n || k >= layout.limit) throw new RangeError(`k must be from 0 to ${layout.limit - 1n} for this layout (got ${showNumber(k)})`);
  return k.toString().padStart(layout.width, '0');
}
