import { candidate, powLayout, type PowLayout } from './order.ts';
import { IV, compress, padTail } from '../hash/sha256.ts';

/** One window of 10^digitsInBlock counters shares the state before the final block. */
export interface PowWindow {
  /** First counter of the window; the next windowSize counters share `mid`. */
  readonly first: bigint;
  /** SHA-256 state after every block before the final one (as uint32 words). */
  readonly mid: Uint32Array;
  /** The final block for counter `first`: nonce tail, digits, 0x80, length. */
  readonly block: Uint8Array;
}

const encoder = new TextEncoder();

/**
 * A nonce and difficulty laid out in the canonical order, with the midstate
 * of the constant prefix computed once and the window's state cached.
 */
export class PowTarget {
  readonly nonceBytes: Uint8Array;
  readonly layout: PowLayout;
  readonly windowSize: bigint;
  private readonly nonceState: Int32Array;
  private readonly nonceStateLength: number;
  private cached: PowWindow | null = null;

  constructor(
    readonly nonce: string,
    readonly difficulty: number,
  ) {
    this.nonceBytes = encoder.encode(nonce);
    this.layout = powLayout(this.nonceBytes.length);
    this.windowSize = 10n ** BigInt(this.layout.digitsInBlock);
    // Whole nonce blocks before the final block never change: hash them once.
    this.nonceStateLength = Math.min(this.layout.prefixLength, this.nonceBytes.length - (this.nonceBytes.length % 64));
    this.nonceState = IV.slice();
    for (let off = 0; off < this.nonceStateLength; off += 64) compress(this.nonceState, this.nonceBytes, off);
  }

  /** The window holding counter k (k below layout.limit). */
  window(k: bigint): PowWindow {
    const first = k - (k % this.windowSize);
    if (this.cached?.first === first) return this.cached;
    const message = this.message(first);
    const state = this.nonceState.slice();
    for (let off = this.nonceStateLength; off < this.layout.prefixLength; off += 64) compress(state, message, off);
    const block = padTail(message.subarray(this.layout.prefixLength), message.length);
    this.cached = { first, mid: new Uint32Array(state.buffer), block };
    return this.cached;
  }

  /** The message nonce‖S_k. */
  message(k: bigint): Uint8Array {
    const s = encoder.encode(candidate(this.layout, k));
    const out = new Uint8Array(this.nonceBytes.length + s.length);
    out.set(this.nonceBytes);
    out.set(s, this.nonceBytes.length);
    return out;
  }
}

/** True when the first `difficulty` hex characters of the digest are '0'. */
export function meetsDifficulty(digest: Uint8Array, difficulty: number): boolean {
  for (let i = 0; i < difficulty; i++) {
    const byte = digest[i >> 1]!;
    const nibble = i & 1 ? byte & 0x0f : byte >> 4;
    if (nibble !== 0) return false;
  }
  return true;
}
