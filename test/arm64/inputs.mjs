// What the arm64 check computes, shared by test/arm64/check.mjs (run on the
// arm64 Node) and test/arm64.test.ts (the x64 oracles). Plain JavaScript.
import { readFileSync } from 'node:fs';

/** The messages every SHA-256 kernel hashes: all lengths 0 to 300 across the block boundaries. */
export function messages() {
  return Array.from({ length: 301 }, (_, n) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + n) & 0xff));
}
/** Nonces of every length mod 64, so every candidate layout is used. */
export function nonces() {
  // Every length mod 64; 0 as 64 (an empty nonce is refused).
  return Array.from({ length: 64 }, (_, n) => 'arm64-nonce-'.repeat(6).slice(0, n || 64));
}
/** Numbers whose verdicts are compared: small ones, RFC safe primes up to 4096 bits and their neighbours. */
export function numbers() {
  const rfc = JSON.parse(readFileSync(new URL('../vectors/rfc-safe-primes.json', import.meta.url), 'utf8')).safe_primes;
  const big = Object.values(rfc)
    .map(BigInt)
    .filter((p) => p < 1n << 4097n);
  return [...Array.from({ length: 200 }, (_, i) => BigInt(i)), ...big.flatMap((p) => [p, p + 2n, p - 2n])];
}
export const SEARCH = { bits: 256, seed: 7n, count: 3 };
