/**
 * HMAC-SHA-256 (RFC 2104) for challenge tokens, synchronous and on the
 * project's own SHA-256 rounds, so it runs alike in Node and in a browser
 * (WebCrypto's HMAC is asynchronous and, per call, far slower). A key's inner
 * and outer pad states are computed once and cached: a MAC over one block of
 * message then costs two compressions and allocates nothing, which beats
 * node:crypto's createHmac, whose cost per call is mostly the object it makes.
 */
import { IV, compress, sha256 } from '../hash/sha256.ts';

export interface MacKey {
  /** The token's key id: one byte of a hash of the key, so verification tries only the keys that carry it. */
  readonly id: number;
  /** A copy of the key, to notice a caller's array changed under the cache. */
  readonly bytes: Uint8Array;
  readonly inner: Int32Array;
  readonly outer: Int32Array;
}

const encoder = new TextEncoder();
const ID_LABEL = encoder.encode('powprime challenge key id\0');

function prepare(key: Uint8Array): MacKey {
  const bytes = key.slice();
  const block = new Uint8Array(64);
  block.set(bytes.length > 64 ? sha256(bytes) : bytes);
  for (let i = 0; i < 64; i++) block[i]! ^= 0x36;
  const inner = IV.slice();
  compress(inner, block, 0);
  for (let i = 0; i < 64; i++) block[i]! ^= 0x36 ^ 0x5c;
  const outer = IV.slice();
  compress(outer, block, 0);
  const labelled = new Uint8Array(ID_LABEL.length + bytes.length);
  labelled.set(ID_LABEL);
  labelled.set(bytes, ID_LABEL.length);
  return { id: sha256(labelled)[0]!, bytes, inner, outer };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Keys are passed on every call, so their pad states are kept between calls.
// Byte keys by identity (checked against a copy, so a changed array is seen);
// string keys by value, a bounded number of them (a service has a handful).
const byArray = new WeakMap<Uint8Array, MacKey>();
const byString = new Map<string, MacKey>();
const MAX_STRING_KEYS = 64;

/** The prepared key for a key given as bytes or as text (its UTF-8 bytes). */
export function macKey(key: Uint8Array | string): MacKey {
  if (typeof key === 'string') {
    let k = byString.get(key);
    if (k === undefined) {
      if (byString.size >= MAX_STRING_KEYS) byString.clear();
      byString.set(key, (k = prepare(encoder.encode(key))));
    }
    return k;
  }
  let k = byArray.get(key);
  if (k === undefined || !sameBytes(k.bytes, key)) byArray.set(key, (k = prepare(key)));
  return k;
}

const block = new Uint8Array(64);
const state = new Int32Array(8);

/** state = the MAC of message[0 .. length) (length ≤ 55: one block) as eight big-endian words. */
function macState(key: MacKey, message: Uint8Array, length: number): Int32Array {
  if (length > 55) throw new RangeError('a challenge MAC covers at most 55 bytes');
  block.fill(0);
  block.set(message.subarray(0, length));
  block[length] = 0x80;
  const innerBits = (64 + length) * 8;
  block[62] = innerBits >>> 8;
  block[63] = innerBits & 0xff;
  state.set(key.inner);
  compress(state, block, 0);
  // The outer message is the inner digest: 32 bytes, then its padding.
  block.fill(0);
  for (let i = 0; i < 8; i++) {
    const w = state[i]!;
    block[4 * i] = w >>> 24;
    block[4 * i + 1] = w >>> 16;
    block[4 * i + 2] = w >>> 8;
    block[4 * i + 3] = w;
  }
  block[32] = 0x80;
  block[62] = (96 * 8) >>> 8;
  block[63] = (96 * 8) & 0xff;
  state.set(key.outer);
  compress(state, block, 0);
  return state;
}

/** Writes HMAC-SHA-256(key, message[0 .. length)) to out[at .. at + 32). */
export function macInto(key: MacKey, message: Uint8Array, length: number, out: Uint8Array, at: number): void {
  const s = macState(key, message, length);
  for (let i = 0; i < 8; i++) {
    const w = s[i]!;
    out[at + 4 * i] = w >>> 24;
    out[at + 4 * i + 1] = w >>> 16;
    out[at + 4 * i + 2] = w >>> 8;
    out[at + 4 * i + 3] = w;
  }
}

/**
 * True when mac[at .. at + 32) is HMAC-SHA-256(key, message[0 .. length)).
 * Every byte is compared, whatever the first difference: the time taken says
 * nothing of how much of a guessed MAC was right.
 */
export function macMatches(key: MacKey, message: Uint8Array, length: number, mac: Uint8Array, at: number): boolean {
  const s = macState(key, message, length);
  let diff = 0;
  for (let i = 0; i < 8; i++) {
    const given = (mac[at + 4 * i]! << 24) | (mac[at + 4 * i + 1]! << 16) | (mac[at + 4 * i + 2]! << 8) | mac[at + 4 * i + 3]!;
    diff |= given ^ s[i]!;
  }
  return diff === 0;
}
