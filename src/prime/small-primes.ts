/** Small odd primes for trial division and the safe-prime sieve, built on first use. */

function oddPrimesBelow(limit: number, from: number): Uint32Array {
  const composite = new Uint8Array(limit);
  const out: number[] = [];
  for (let i = 3; i < limit; i += 2) {
    if (composite[i]) continue;
    if (i >= from) out.push(i);
    for (let j = i * i; j < limit; j += 2 * i) composite[j] = 1;
  }
  return Uint32Array.from(out);
}

/** Odd primes below 1000 (the native core's trial-division table). */
export const TRIAL_PRIMES: Uint32Array = oddPrimesBelow(1000, 3);

let sieveCache: { limit: number; primes: Uint32Array; inv12: Uint32Array } | null = null;

/** 12^-1 mod r: r mod 12 is its own inverse mod 12, so (r·k + 1)/12 with k = −r mod 12 is exact. */
function inverseOf12(r: number): number {
  return (r * ((12 - (r % 12)) % 12) + 1) / 12;
}

/** Primes 5 <= r < limit, with 12^-1 mod r for each. */
export function sievePrimes(limit: number): { primes: Uint32Array; inv12: Uint32Array } {
  if (!sieveCache || sieveCache.limit < limit) {
    const primes = oddPrimesBelow(limit, 5);
    sieveCache = { limit, primes, inv12: primes.map(inverseOf12) };
  }
  if (sieveCache.limit === limit) return sieveCache;
  let k = sieveCache.primes.length;
  while (k > 0 && sieveCache.primes[k - 1]! >= limit) k--;
  return { primes: sieveCache.primes.subarray(0, k), inv12: sieveCache.inv12.subarray(0, k) };
}
