// powprime dhparam and generateDhParams: PKCS#3 parameters that OpenSSL
// accepts, p ≡ 23 (mod 24) with g = 2, the same for the same seed.
import { spawnSync } from 'node:child_process';
import { checkPrimeSync } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closePool, generateDhParams, searchSafePrimes } from '../src/index.ts';
import { runCliSync as cli } from './helpers/cli.ts';
import { hasCommand } from './helpers/oracles.ts';
import { tempDir } from './helpers/tmp.ts';

afterAll(() => closePool());
const dir = tempDir('powprime-dhparam-');
const hasOpenssl = hasCommand('openssl', ['version']);

describe('generateDhParams', () => {
  it('p is the first safe prime ≡ 23 (mod 24) of the seeded search, q prime by node:crypto', async () => {
    const r = await generateDhParams({ bits: 512, seed: 77n });
    expect(r.g).toBe(2n);
    expect(r.p % 24n).toBe(23n);
    expect(r.p.toString(2)).toHaveLength(512);
    expect(checkPrimeSync(r.p, { checks: 40 }) && checkPrimeSync((r.p - 1n) / 2n, { checks: 40 })).toBe(true);
    // Every earlier index of the same search is a safe prime of the other class.
    const earlier: bigint[] = [];
    for await (const s of searchSafePrimes({ bits: 512, seed: 77n, count: Number(r.index) + 1 })) earlier.push(s.prime);
    expect(earlier.at(-1)).toBe(r.p);
    for (const p of earlier.slice(0, -1)) expect(p % 24n).toBe(11n);
    expect((await generateDhParams({ bits: 512, seed: 77n })).pem).toBe(r.pem);
  });

  it.each([256, 511, 16385])('refuses %d bits', async (bits) => {
    await expect(generateDhParams({ bits })).rejects.toThrow(RangeError);
  });
});

describe('powprime dhparam', () => {
  it.runIf(hasOpenssl)('writes PEM that `openssl dhparam -check` accepts, and the same seed gives the same file', () => {
    const file = path.join(dir, 'dh.pem');
    const r = cli('dhparam', '1024', '--seed', '9', '--out', file, '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ bits: 1024, seed: '9', out: file });
    expect(statSync(file).mode & 0o777).toBe(0o644);
    const check = spawnSync('openssl', ['dhparam', '-check', '-noout', '-in', file], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout + check.stderr).toMatch(/DH parameters appear to be ok/);
    const text = spawnSync('openssl', ['dhparam', '-text', '-noout', '-in', file], { encoding: 'utf8' }).stdout;
    expect(text).toMatch(/DH Parameters: \(1024 bit\)/);
    expect(text).toMatch(/G:\s+2 \(0x2\)/);
    const again = cli('dhparam', '1024', '--seed', '9');
    expect(again.stdout).toBe(readFileSync(file, 'utf8'));
  });

  it.each([
    [['dhparam', '511'], /bits must be an integer from 512/],
    [['dhparam', 'big'], /bits must be an integer/],
    [['dhparam', '1024', '--out', path.join('/nonexistent-dir', 'x.pem')], /cannot use/],
    [['dhparam', '1024', '--seed', '-1'], /--seed/],
  ])('bad input %j → one line, exit 2', (args, message) => {
    const r = cli(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
