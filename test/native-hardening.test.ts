import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { backendInfo } from '../src/index.ts';
import { native } from '../src/native.ts';

// Edge cases where the native code once read or wrote out of bounds or hit
// undefined behaviour; `npm run test:sanitize` runs them under ASan/UBSan.
const n = backendInfo().backend === 'native' ? native() : null;
const hashers = n ? n.backendInfo().hashers : [];

describe.runIf(n !== null).each(hashers)('native sha256 kernel %s on empty input', (kernel) => {
  const empty = createHash('sha256').digest('hex');
  it('hashes every shape of empty Uint8Array like node:crypto', () => {
    const shapes = [new Uint8Array(0), new Uint8Array(new ArrayBuffer(0)), new Uint8Array(new ArrayBuffer(64), 64), new Uint8Array(8).subarray(3, 3), new Uint8Array(new SharedArrayBuffer(0))];
    for (const data of shapes) expect(Buffer.from(n!.sha256(data, kernel)).toString('hex')).toBe(empty);
  });
});

describe.runIf(n !== null)('native bignum at its size limit', () => {
  // 64·511 bits is the largest the binding takes; 509..511 words are padded
  // to 512 by the MULX/ADX kernel, the width every fixed-size buffer must hold.
  const maxBits = 64 * 511;

  it('takes numbers up to 64·511 bits and refuses larger ones naming the argument', () => {
    expect(() => n!.isProbablePrime(2n ** BigInt(maxBits))).toThrow(RangeError);
    expect(() => n!.isProbablePrime(2n ** BigInt(maxBits))).toThrow(/^n is too large/);
    expect(() => n!.isSafePrime(2n ** BigInt(maxBits))).toThrow(/^p is too large/);
    expect(() => n!.modPow(2n, 3n, 2n ** BigInt(maxBits) + 1n)).toThrow(/^modulus is too large/);
  });

  it('gives textbook answers for 509-, 510- and 511-word moduli', () => {
    for (const words of [509, 510, 511]) {
      // 2^(64·words) − 1 = product of 2^(2^i·k) + 1 factors: odd, composite, divisible by 3.
      const m = 2n ** BigInt(64 * words) - 1n;
      expect(n!.isProbablePrime(m)).toBe(false);
      // 2^(64·words) ≡ 1, so 2^(64·words + 5) ≡ 32 (mod m), and (m − 1)^2 ≡ 1.
      expect(n!.pow2Mod(BigInt(64 * words + 5), m)).toBe(32n);
      expect(n!.modPow(m - 1n, 2n, m)).toBe(1n);
    }
  });
});
