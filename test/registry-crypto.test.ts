import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { b85decode, b85encode } from '../src/clients/registry/base85.ts';
import { decryptKey, decryptKeyDetailed, encryptKey } from '../src/clients/registry/key-crypto.ts';
import { totpCode, totpCounter } from '../src/clients/registry/totp.ts';
import { hasCommand, rng } from './helpers/oracles.ts';

// Vectors computed with CPython (base64, hmac + hashlib.sha3_512) and the cryptography package.
const v = JSON.parse(readFileSync(new URL('./vectors/registry-crypto.json', import.meta.url), 'utf8')) as {
  base85: { bytes_hex: string; b85: string }[];
  totp_hmac_sha3_512: { key_b85: string; t0: number; now: number; period: number; counter: number; code6: string; code8: string }[];
  key_encryption: { subkey_b85: string; now: number; nonce_hex: string; plaintext_hex: string; blob: string }[];
};
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));

describe('base85 (Python b85 variant)', () => {
  it.each(v.base85)('vector $b85', ({ bytes_hex, b85 }) => {
    expect(b85encode(bytes(bytes_hex))).toBe(b85);
    expect(hex(b85decode(b85))).toBe(bytes_hex);
  });

  it.runIf(hasCommand('python3', ['--version']))("agrees with Python's base64.b85encode on random data of every length to 70", () => {
    const next = rng(85);
    const inputs = Array.from({ length: 71 }, (_, n) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256)));
    const py = spawnSync('python3', ['-c', 'import sys,base64\nfor l in sys.stdin.read().split("\\n"): print(base64.b85encode(bytes.fromhex(l)).decode())'], {
      input: inputs.map(hex).join('\n'),
      encoding: 'utf8',
    });
    expect(py.stdout.split('\n').slice(0, 71)).toEqual(inputs.map(b85encode));
  });

  it('refuses bad characters and impossible groups', () => {
    expect(() => b85decode('abc"e')).toThrow(/bad base85 character/);
    expect(() => b85decode('abcd é')).toThrow(RangeError);
    expect(() => b85decode('~~~~~')).toThrow(/larger than 32 bits/);
    expect(() => b85decode('abcdef')).toThrow(/cannot be complete/);
    expect(() => b85encode('x' as never)).toThrow(TypeError);
  });
});

describe('TOTP over HMAC-SHA3-512, period 256', () => {
  it.each(v.totp_hmac_sha3_512)('counter $counter → $code6', (c) => {
    const key = b85decode(c.key_b85);
    expect(totpCounter({ t0: c.t0, now: c.now, period: c.period })).toBe(c.counter);
    expect(totpCode(key, { t0: c.t0, now: c.now, period: c.period })).toBe(c.code6);
    expect(totpCode(key, { t0: c.t0, now: c.now, period: c.period, digits: 8 })).toBe(c.code8);
  });

  it('rejects bad arguments by name', () => {
    expect(() => totpCode('k' as never, { t0: 0, now: 1 })).toThrow(/secret/);
    expect(() => totpCode(new Uint8Array(8), { t0: 0, now: Number.NaN })).toThrow(/now/);
    expect(() => totpCode(new Uint8Array(8), { t0: 0, now: 1, digits: 11 })).toThrow(/digits/);
    expect(() => totpCode(new Uint8Array(8), { t0: 100, now: 1 })).toThrow(/before t0/);
  });
});

describe('registry key encryption (ChaCha20-Poly1305)', () => {
  it.each(v.key_encryption)('vector at now=$now', (c) => {
    const subkey = b85decode(c.subkey_b85);
    expect(encryptKey(bytes(c.plaintext_hex), subkey, { now: c.now, nonce: bytes(c.nonce_hex) })).toBe(c.blob);
    expect(hex(decryptKey(c.blob, subkey, { now: c.now }))).toBe(c.plaintext_hex);
  });

  it('round trips at window edges: the previous window still opens, and says so; two back does not', () => {
    const c = v.key_encryption[0]!;
    const subkey = b85decode(c.subkey_b85);
    const plain = bytes(c.plaintext_hex);
    const last = Math.floor(c.now / 256) * 256 + 255; // last second of a window
    const blob = encryptKey(plain, subkey, { now: last });
    expect(decryptKeyDetailed(blob, subkey, { now: last })).toMatchObject({ window: 'current' });
    const next = decryptKeyDetailed(blob, subkey, { now: last + 1 });
    expect(next.window).toBe('previous');
    expect(hex(next.plain)).toBe(c.plaintext_hex);
    expect(() => decryptKey(blob, subkey, { now: last + 1, tryPrevious: false })).toThrow(/does not open/);
    expect(() => decryptKey(blob, subkey, { now: last + 257 })).toThrow(/does not open/);
    // Random nonces: two encryptions differ, both open.
    const again = encryptKey(plain, subkey, { now: last });
    expect(again).not.toBe(blob);
    expect(hex(decryptKey(again, subkey, { now: last }))).toBe(c.plaintext_hex);
  });

  it('a wrong subkey or a malformed blob is a clear error', () => {
    const c = v.key_encryption[0]!;
    const subkey = b85decode(c.subkey_b85);
    const wrong = subkey.slice();
    wrong[50]! ^= 1;
    expect(() => decryptKey(c.blob, wrong, { now: c.now })).toThrow(/does not open/);
    expect(() => decryptKey('abc"', subkey, { now: c.now })).toThrow(/bad base85 character/);
    expect(() => decryptKey('0000000000', subkey, { now: c.now })).toThrow(/too short/);
    expect(() => decryptKey(c.blob, subkey.subarray(0, 32), { now: c.now })).toThrow(/64 bytes/);
    expect(() => encryptKey(new Uint8Array(4), subkey, {} as never)).toThrow(/now/);
  });
});
