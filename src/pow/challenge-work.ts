/**
 * The proof-of-work check of verifySolution: SHA-256(nonce‖solution) has at
 * least `bits` leading zero bits (d hex digits are 4d bits). One hash on the
 * project's SHA-256 rounds, into a buffer kept between calls: no allocation,
 * no digest bytes, the zero bits read from the final state words.
 */
import { IV, compress } from '../hash/sha256.ts';

/** Longest message checked: a token and a 32-digit solution fit, with room. */
const MAX_MESSAGE = 183;
const message = new Uint8Array(192);
const state = new Int32Array(8);

/**
 * True when SHA-256 of the ASCII strings nonce‖solution starts with `bits`
 * zero bits. Both must be ASCII (the caller checked their alphabets).
 */
export function meetsBits(nonce: string, solution: string, bits: number): boolean {
  const length = nonce.length + solution.length;
  if (length > MAX_MESSAGE) throw new RangeError(`a proof-of-work message is at most ${MAX_MESSAGE} bytes`);
  for (let i = 0; i < nonce.length; i++) message[i] = nonce.charCodeAt(i);
  for (let i = 0; i < solution.length; i++) message[nonce.length + i] = solution.charCodeAt(i);
  const end = (length + 9 + 63) & ~63;
  message.fill(0, length, end);
  message[length] = 0x80;
  const lengthBits = length * 8;
  message[end - 2] = lengthBits >>> 8;
  message[end - 1] = lengthBits & 0xff;
  state.set(IV);
  for (let off = 0; off < end; off += 64) compress(state, message, off);
  let left = bits;
  for (let i = 0; left > 0; i++, left -= 32) {
    const word = state[i]! >>> 0;
    if (left >= 32 ? word !== 0 : word >>> (32 - left) !== 0) return false;
  }
  return true;
}
