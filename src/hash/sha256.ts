/**
 * SHA-256 in TypeScript: the compression function the TS proof-of-work
 * kernel is built on, and a whole-message hash for `verifyPow`, the public
 * `sha256()` without the addon, and prime/'s seeds and Miller–Rabin bases.
 * It lives apart from pow/ and prime/ so neither reaches into the other. Written by
 * hand (not @noble/hashes) because the kernel needs the raw rounds: a
 * midstate, rounds started part-way through a block, and a schedule whose
 * constant words are computed once per group.
 */

export const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

export const IV = Int32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

/** Expands w[0..15] into w[16..63] in place. */
export function expandSchedule(w: Int32Array, from = 16): void {
  for (let t = from; t < 64; t++) {
    const x = w[t - 15]!;
    const y = w[t - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[t] = (s1 + w[t - 7]! + s0 + w[t - 16]!) | 0;
  }
}

/** Runs rounds [from, to) on state s (a..h) with the expanded schedule w. */
export function rounds(s: Int32Array, w: Int32Array, from: number, to: number): void {
  let a = s[0]!,
    b = s[1]!,
    c = s[2]!,
    d = s[3]!,
    e = s[4]!,
    f = s[5]!,
    g = s[6]!,
    h = s[7]!;
  for (let t = from; t < to; t++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + (g ^ (e & (f ^ g))) + K[t]! + w[t]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) | (c & (a | b)))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  s[0] = a;
  s[1] = b;
  s[2] = c;
  s[3] = d;
  s[4] = e;
  s[5] = f;
  s[6] = g;
  s[7] = h;
}

const scratchW = new Int32Array(64);
const scratchS = new Int32Array(8);

/** state = compress(state, bytes[offset .. offset + 64)). */
export function compress(state: Int32Array, bytes: Uint8Array, offset: number): void {
  const w = scratchW;
  for (let t = 0; t < 16; t++) {
    const p = offset + 4 * t;
    w[t] = (bytes[p]! << 24) | (bytes[p + 1]! << 16) | (bytes[p + 2]! << 8) | bytes[p + 3]!;
  }
  expandSchedule(w);
  scratchS.set(state);
  rounds(scratchS, w, 0, 64);
  for (let i = 0; i < 8; i++) state[i] = (state[i]! + scratchS[i]!) | 0;
}

/** The final block(s) of a message of `totalLength` bytes whose last `tail` bytes are given. */
export function padTail(tail: Uint8Array, totalLength: number): Uint8Array {
  const blocks = tail.length + 9 <= 64 ? 1 : 2;
  const out = new Uint8Array(blocks * 64);
  out.set(tail);
  out[tail.length] = 0x80;
  const view = new DataView(out.buffer);
  const bits = BigInt(totalLength) * 8n;
  view.setBigUint64(out.length - 8, bits);
  return out;
}

/** SHA-256 of a whole message. */
export function sha256(message: Uint8Array): Uint8Array {
  const state = IV.slice();
  const whole = message.length - (message.length % 64);
  for (let off = 0; off < whole; off += 64) compress(state, message, off);
  const tail = padTail(message.subarray(whole), message.length);
  for (let off = 0; off < tail.length; off += 64) compress(state, tail, off);
  const out = new Uint8Array(32);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) view.setInt32(4 * i, state[i]!);
  return out;
}
