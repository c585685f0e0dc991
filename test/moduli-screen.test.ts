// Screening a moduli file in the library (src/moduli/screen.ts): ssh-keygen's
// own type-4 candidates, where the base-2 Fermat pass drops most before the
// full check, kept exactly where node:crypto finds q and p prime and
// ssh-keygen's rule gives a generator; OpenSSH's groups mixed in at another
// size; an even q; progress; and an interrupt.
import { checkPrimeSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { closePool } from '../src/index.ts';
import { screenModuliText } from '../src/moduli/screen.ts';
import { describeBackends } from './helpers/backends.ts';

const candidates = readFileSync(new URL('./vectors/ssh-keygen-candidates-768.txt', import.meta.url), 'utf8');
const system = readFileSync(new URL('./vectors/openssh-moduli-sample.txt', import.meta.url), 'utf8');

/** ssh-keygen's generator rule, written out here: 2 when p ≡ 11 (mod 24), 5 when p mod 10 is 3 or 7. */
const hasGenerator = (p: bigint): boolean => p % 24n === 11n || p % 10n === 3n || p % 10n === 7n;

/** The candidates' moduli (hex q) that screening must keep, by node:crypto. */
const keptByOracle = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => /^\d/.test(l))
    .map((l) => l.split(' ')[6]!)
    .filter((hex) => {
      const q = BigInt(`0x${hex}`);
      const p = 2n * q + 1n;
      return hasGenerator(p) && checkPrimeSync(q) && checkPrimeSync(p);
    })
    .map((hex) => (2n * BigInt(`0x${hex}`) + 1n).toString(16).toUpperCase());

afterAll(() => closePool());

describeBackends('screening a moduli file', (backend) => {
  it("keeps exactly ssh-keygen's candidates whose q and p node:crypto finds prime, with a generator", async () => {
    const expected = keptByOracle(candidates);
    // A test that cannot fail is no test: the vector holds groups to keep and many candidates to drop.
    expect(expected.length).toBeGreaterThan(1);
    const phases = new Map<string, number[]>();
    const r = await screenModuliText(candidates, {
      rounds: -1,
      backend,
      onProgress: (phase, done, total) => phases.set(phase, [...(phases.get(phase) ?? []), done, total]),
    });
    expect(r.good.map((e) => e.modulus.toString(16).toUpperCase())).toEqual(expected);
    expect(r.bad).toEqual([]);
    expect(r.lines).toBe(500);
    expect(r.dropped).toBe(500 - expected.length);
    // Progress: the Fermat pass counts q and p of every candidate with a generator (the others are dropped unread), the full check each survivor.
    const withGenerator = candidates
      .split('\n')
      .filter((l) => /^\d/.test(l))
      .filter((l) => hasGenerator(2n * BigInt(`0x${l.split(' ')[6]}`) + 1n)).length;
    expect(withGenerator).toBeLessThan(500);
    expect(phases.get('sieving')!.slice(-2)).toEqual([2 * withGenerator, 2 * withGenerator]);
    expect(phases.get('checking')!.slice(-2)).toEqual([expected.length, expected.length]);
  });

  it("checks OpenSSH's groups of another size in the same file, and drops an even q without a test", async () => {
    const groups = system.split('\n').slice(1, 3);
    const first = candidates.split('\n')[0]!.split(' ');
    // q even, p = 2q + 1 ≡ 3 (mod 10): ssh-keygen's rule gives 5, but q is not prime.
    let q = BigInt(`0x${first[6]}`) + 1n;
    while ((2n * q + 1n) % 10n !== 3n || q & 1n) q++;
    const even = [...first.slice(0, 6), q.toString(16).toUpperCase()].join(' ');
    const r = await screenModuliText([...groups, even, ...candidates.split('\n').slice(0, 40)].join('\n'), { rounds: -1, backend });
    expect(r.good.slice(0, 2).map((e) => e.modulus)).toEqual(groups.map((l) => BigInt(`0x${l.split(' ')[6]}`)));
    expect(r.good.slice(2).map((e) => e.modulus.toString(16).toUpperCase())).toEqual(keptByOracle(candidates.split('\n').slice(0, 40).join('\n')));
    expect(r.bad).toEqual([]);
    expect(r.dropped).toBe(41 - (r.good.length - 2));
  });

  it("stops when its signal is aborted, with the signal's reason", async () => {
    const stop = new AbortController();
    stop.abort(new Error('stop here'));
    await expect(screenModuliText(candidates, { rounds: -1, backend, signal: stop.signal })).rejects.toThrow('stop here');
  });
});
