import { describe, expect, it } from 'vitest';
import { native } from '../src/native.ts';
import { FOUR, THREE } from '../src/pow/kernel.ts';
import { defaultRounds } from '../src/prime/primality.ts';
import { TRIAL_PRIMES } from '../src/prime/small-primes.ts';
import { SIEVE_LIMIT_MAX, sieveLimit, windowBits } from '../src/prime/tuning.ts';

// Every table that exists both in the native core and in the TS backend, read
// from the addon and held equal to its TS twin, so neither can drift alone.
const n = native();

describe.runIf(n !== null)('TS tables equal their native originals', () => {
  const t = n ? n.tables() : null;

  it('Miller–Rabin default rounds, for every size the native core takes', () => {
    const native = (bits: number): number =>
      bits <= t!.bpswExactBits ? 0 : t!.defaultRounds.find(([min]) => bits >= min)![1];
    expect(t!.defaultRounds.length).toBeGreaterThan(3);
    for (let bits = 1; bits <= 64 * 511; bits++) if (defaultRounds(bits) !== native(bits)) expect([bits, defaultRounds(bits)]).toEqual([bits, native(bits)]);
    // Spot values of the published table (2^-80 error bound).
    expect([defaultRounds(64), defaultRounds(65), defaultRounds(1024), defaultRounds(2048), defaultRounds(4096)]).toEqual([0, 27, 5, 4, 3]);
  });

  it('sliding-window widths', () => {
    const native = (bits: number): number => t!.windowBits.find(([above]) => bits > above)?.[1] ?? 1;
    for (let bits = 0; bits <= 64 * 511; bits++) if (windowBits(bits) !== native(bits)) expect([bits, windowBits(bits)]).toEqual([bits, native(bits)]);
  });

  it('trial-division primes and the sieve depth', () => {
    expect(t!.trialPrimesBelow).toBe(1000);
    expect(Array.from(TRIAL_PRIMES)).toEqual(Array.from(t!.trialPrimes));
    // 168 primes below 1000, without 2.
    expect(TRIAL_PRIMES.length).toBe(167);
    expect(SIEVE_LIMIT_MAX).toBe(t!.sieveLimit);
    expect(sieveLimit(100_000)).toBe(t!.sieveLimit);
  });

  it('proof-of-work fast-word tables', () => {
    expect(Array.from(FOUR, (x) => x >>> 0)).toEqual(Array.from(t!.powFastWordsFour));
    expect(Array.from(THREE, (x) => x >>> 0)).toEqual(Array.from(t!.powFastWordsThree));
    // Candidate 42 of a 4-digit group is the ASCII digits "0042".
    expect(t!.powFastWordsFour[42]).toBe(Buffer.from('0042').readUInt32BE(0));
    expect(t!.powFastWordsThree[7]).toBe(Buffer.from([0x30, 0x30, 0x37, 0x80]).readUInt32BE(0));
  });
});
