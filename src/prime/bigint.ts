/** bigint helpers for the TS prime backend. */
import { windowBits } from './tuning.ts';

export function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** Minimal big-endian bytes of a non-negative n (one 0 byte for 0). */
export function toBytes(n: bigint): Uint8Array {
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

export function fromBytes(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`);
}

/** base^e mod m, left-to-right sliding window (the same windows as the native core). */
export function modPow(base: bigint, e: bigint, m: bigint): bigint {
  if (m === 1n) return 0n;
  const bits = e.toString(2);
  const nb = bits.length;
  if (e === 0n) return 1n;
  const w = windowBits(nb);
  const b = ((base % m) + m) % m;
  const table: bigint[] = [b];
  const sq = (b * b) % m;
  for (let i = 1; i < 1 << (w - 1); i++) table.push((table[i - 1]! * sq) % m);
  let acc = 1n;
  let started = false;
  let i = 0; // index into `bits`, most significant first
  while (i < nb) {
    if (bits[i] === '0') {
      if (started) acc = (acc * acc) % m;
      i++;
      continue;
    }
    let j = Math.min(i + w, nb) - 1;
    while (bits[j] === '0') j--;
    const val = parseInt(bits.slice(i, j + 1), 2);
    if (started) {
      for (let k = i; k <= j; k++) acc = (acc * acc) % m;
      acc = (acc * table[val >> 1]!) % m;
    } else {
      acc = table[val >> 1]!;
      started = true;
    }
    i = j + 1;
  }
  return acc;
}

/** 2^e mod m by squaring and doubling: no general multiplications. */
export function pow2Mod(e: bigint, m: bigint): bigint {
  if (m === 1n) return 0n;
  const bits = e.toString(2);
  if (e === 0n) return 1n;
  let acc = 2n % m;
  for (let i = 1; i < bits.length; i++) {
    acc = (acc * acc) % m;
    if (bits[i] === '1') {
      acc <<= 1n;
      if (acc >= m) acc -= m;
    }
  }
  return acc;
}

/** Integer square root (floor), Newton's method. */
export function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt((bitLength(n) + 1) >> 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}
