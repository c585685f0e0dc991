/**
 * PKCS#3 DH parameter encoding, checked against the openssl CLI: byte-for-byte
 * equal to OpenSSL's own PEM of the RFC 7919 groups, accepted by
 * `openssl dhparam -check`, and parsed back to the same integers by
 * `openssl asn1parse` at every DER length form.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dhParamsDer, dhParamsPem } from '../src/prime/dh-pem.ts';

const vectors = JSON.parse(readFileSync(new URL('./vectors/rfc-safe-primes.json', import.meta.url), 'utf8')) as {
  safe_primes: Record<string, string>;
};
const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'powprime-dhpem-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function openssl(args: string[], input?: string | Buffer): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('openssl', args, { input, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!hasOpenssl)('DH parameters PEM (openssl as the oracle)', () => {
  it.each([2048, 3072, 4096])('equals OpenSSL’s own PEM of ffdhe%i', (bits) => {
    const out = join(dir, `ffdhe${bits}.pem`);
    const r = openssl(['genpkey', '-genparam', '-algorithm', 'DH', '-pkeyopt', `dh_param:ffdhe${bits}`, '-out', out]);
    expect(r.status, r.stderr).toBe(0);
    const p = BigInt(vectors.safe_primes[`rfc7919-ffdhe${bits}`]!);
    expect(dhParamsPem(p, 2n)).toBe(readFileSync(out, 'utf8'));
  });

  it.each(['rfc2409-modp-768', 'rfc3526-modp-2048', 'rfc3526-modp-8192'])('%s with g = 2 passes openssl dhparam -check', (name) => {
    const file = join(dir, `${name}.pem`);
    writeFileSync(file, dhParamsPem(BigInt(vectors.safe_primes[name]!), 2n));
    const r = openssl(['dhparam', '-check', '-noout', '-in', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/DH parameters appear to be ok/);
  });

  // Lengths that cross the DER short/long forms: 1-byte, 127/128-byte and 255/256-byte bodies.
  it.each([
    ['23', 23n],
    ['2^1000 − 1', 2n ** 1000n - 1n],
    ['2^1007 + 1', 2n ** 1007n + 1n],
    ['2^1008 + 1', 2n ** 1008n + 1n],
    ['2^2030 + 3', 2n ** 2030n + 3n],
    ['2^2047 + 9', 2n ** 2047n + 9n],
  ])('asn1parse reads back p = %s', (_name, p) => {
    const r = spawnSync('openssl', ['asn1parse', '-inform', 'DER'], { input: Buffer.from(dhParamsDer(p, 5n)), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const ints = [...r.stdout.matchAll(/INTEGER\s+:(-?[0-9A-F]+)/g)].map((m) => BigInt(`0x${m[1]}`));
    expect(ints).toEqual([p, 5n]);
    expect(r.stdout).toMatch(/^\s*0:d=0\s.*SEQUENCE/);
  });
});

describe('DH parameters: bad arguments', () => {
  it('names the argument: a TypeError for a wrong type, a RangeError for a value out of range', () => {
    expect(() => dhParamsDer(2n, 2n)).toThrow(RangeError);
    expect(() => dhParamsDer(2n, 2n)).toThrow(/^p must be at least 3 \(got 2\)$/);
    expect(() => dhParamsDer(23n, 1n)).toThrow(/^g must be from 2 to p − 1 \(got 1, p 23\)$/);
    // A swapped p and g is named by size, not printed digit by digit.
    expect(() => dhParamsDer(5n, (1n << 2047n) + 1n)).toThrow(/^g must be from 2 to p − 1 \(got a 2048-bit number, p 5\)$/);
    expect(() => dhParamsDer(-(1n << 2048n), 2n)).toThrow(/^p must be at least 3 \(got a negative 2049-bit number\)$/);
    expect(() => dhParamsDer(23n, 23n)).toThrow(RangeError);
    for (const p of [23, '23', null]) {
      expect(() => dhParamsPem(p as unknown as bigint, 2n)).toThrow(TypeError);
      expect(() => dhParamsPem(p as unknown as bigint, 2n)).toThrow(/^p must be a bigint \(got /);
    }
    expect(() => dhParamsPem(23n, 2 as unknown as bigint)).toThrow(TypeError);
  });
});
