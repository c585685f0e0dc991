// powprime dhparam and generateDhParams: PKCS#3 parameters that OpenSSL
// accepts, p ≡ 23 (mod 24) with g = 2, the same for the same seed.
import { spawnSync } from 'node:child_process';
import { checkPrimeSync } from 'node:crypto';
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closePool, generateDhParams } from '../src/index.ts';
import { startPoint } from '../src/prime/stream.ts';
import { runCliSync as cli } from './helpers/cli.ts';
import { isSafePrimeByNodeCrypto } from './helpers/number-theory.ts';
import { hasCommand } from './helpers/oracles.ts';
import { tempDir } from './helpers/tmp.ts';

afterAll(() => closePool());
const dir = tempDir('powprime-dhparam-');
const hasOpenssl = hasCommand('openssl', ['version']);

describe('generateDhParams', () => {
  it('p is the least safe prime ≡ 23 (mod 24) from the seeded start point, by node:crypto; the TS backend agrees', async () => {
    const r = await generateDhParams({ bits: 512, seed: 77n });
    expect(r.g).toBe(2n);
    expect(r.p % 24n).toBe(23n);
    expect(r.p.toString(2)).toHaveLength(512);
    // Walk the candidates ≡ 23 (mod 24) from index 0's start point up to p:
    // none before it is a safe prime by node:crypto, p is. A residue per odd
    // prime below 2000 skips those with a small factor in p or (p−1)/2.
    const first = startPoint(512, 77n, 0n);
    let c = first + ((23n - (first % 24n) + 24n) % 24n);
    expect(c).toBeLessThanOrEqual(r.p);
    const small = Array.from({ length: 1000 }, (_, i) => 2 * i + 3).filter((n) => n >= 5 && checkPrimeSync(BigInt(n)));
    const res = small.map((n) => Number(c % BigInt(n)));
    let walked = 0;
    for (; c < r.p; c += 24n, walked++) {
      const smallFactor = res.some((v) => v === 0 || v === 1);
      for (let k = 0; k < small.length; k++) res[k] = (res[k]! + 24) % small[k]!;
      if (!smallFactor) expect(isSafePrimeByNodeCrypto(c), `${c} is a safe prime before p`).toBe(false);
    }
    expect(walked).toBeGreaterThan(0);
    expect(isSafePrimeByNodeCrypto(r.p)).toBe(true);
    expect((await generateDhParams({ bits: 512, seed: 77n })).pem).toBe(r.pem);
    expect((await generateDhParams({ bits: 512, seed: 77n, backend: 'js' })).pem).toBe(r.pem);
  });

  it.each([256, 511, 16385])('refuses %d bits', async (bits) => {
    await expect(generateDhParams({ bits })).rejects.toThrow(RangeError);
  });
});

describe('powprime dhparam', () => {
  it('removes the temporary files a kill -9 left mid-write (their process gone, a minute old), and no other', () => {
    const here = tempDir('powprime-dhparam-stale-');
    // A pid that ran and is gone: a real process, exited and reaped.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const old = (Date.now() - 3_600_000) / 1000;
    const stale = `.dh.pem.${dead}.1700000000000.tmp`;
    const young = `.dh.pem.${dead}.1700000000001.tmp`; // a slow write, perhaps: kept
    const living = `.dh.pem.${process.pid}.1700000000002.tmp`; // this test's own pid runs: kept
    const other = `.other.pem.${dead}.1700000000003.tmp`; // another file's: not this write's business
    for (const name of [stale, young, living, other]) writeFileSync(path.join(here, name), 'half a PEM');
    for (const name of [stale, living, other]) utimesSync(path.join(here, name), old, old);
    const r = cli('dhparam', '512', '--seed', '5', '--out', path.join(here, 'dh.pem'));
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(here).sort()).toEqual([young, living, other, 'dh.pem'].sort());
  });

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

  it.runIf(hasOpenssl)('--outform DER writes the DER that `openssl dhparam -inform DER -check` accepts, the same parameters as the PEM', () => {
    const file = path.join(dir, 'dh.der');
    const r = cli('dhparam', '512', '--seed', '11', '--outform', 'DER', '--out', file);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const check = spawnSync('openssl', ['dhparam', '-inform', 'DER', '-in', file, '-check', '-noout'], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout + check.stderr).toMatch(/DH parameters appear to be ok/);
    // openssl's own DER of our PEM is byte for byte the file.
    const pem = cli('dhparam', '512', '--seed', '11').stdout;
    const conv = spawnSync('openssl', ['dhparam', '-outform', 'DER'], { input: pem });
    expect(conv.status).toBe(0);
    expect(Buffer.compare(conv.stdout, readFileSync(file))).toBe(0);
    // Piped stdout takes the binary as openssl's does; --json carries it in base64.
    expect(Buffer.from(cli('dhparam', '512', '--seed', '11', '--json', '--outform', 'der').stdout.match(/"der":"([^"]+)"/)![1]!, 'base64')).toEqual(readFileSync(file));
  });

  it('off a terminal the seed and the file are still reported, on stderr (stdout keeps only the PEM)', () => {
    const file = path.join(dir, 'seeded.pem');
    const r = cli('dhparam', '512', '--out', file);
    expect(r.status, r.stderr).toBe(0);
    const m = /^512-bit DH parameters \(PEM\) written to (.+) in [\d.]+ s, seed (\d+) /.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(m![1]).toBe(file);
    // The reported seed makes the file again.
    expect(cli('dhparam', '512', '--seed', m![2]!).stdout).toBe(readFileSync(file, 'utf8'));
    const toStdout = cli('dhparam', '512', '--seed', '3');
    expect(toStdout.stdout).toMatch(/^-----BEGIN DH PARAMETERS-----\n[\s\S]*-----END DH PARAMETERS-----\n$/);
    expect(toStdout.stderr).toMatch(/written to stdout .* seed 3 /);
  });

  it.runIf(hasOpenssl)("with no size makes 2048 bits, openssl dhparam's default", () => {
    const file = path.join(dir, 'default.pem');
    const r = cli('dhparam', '--out', file, '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ bits: 2048, out: file });
    expect(spawnSync('openssl', ['dhparam', '-text', '-noout', '-in', file], { encoding: 'utf8' }).stdout).toMatch(/DH Parameters: \(2048 bit\)/);
  });

  it.each([
    [['dhparam', '511'], /bits must be an integer from 512/],
    [['dhparam', 'big'], /bits must be an integer/],
    [['dhparam', '1024', '--out', path.join('/nonexistent-dir', 'x.pem')], /--out \/nonexistent-dir\/x.pem: its folder \/nonexistent-dir does not exist/],
    [['dhparam', '1024', '--seed', '-1'], /--seed/],
    [['dhparam', '512', '--outform', 'txt'], /--outform must be PEM or DER \(got "txt"\)/],
  ])('bad input %j → one line, exit 2', (args, message) => {
    const r = cli(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
