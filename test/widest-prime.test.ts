import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { backendInfo } from '../src/index.ts';
import { native } from '../src/native.ts';

// The native core's one proof at its size limit, in a file of its own: about
// 40 seconds here and minutes under ASan, it belongs to the sanitizer and
// compiler runs and to npm test, not to the binding checks on other Node
// versions (scripts/native-suites.mjs), where it proved nothing new.
const n = backendInfo().backend === 'native' ? native() : null;

describe.runIf(n !== null)('native bignum at its size limit: a prime', () => {
  // A 510-word prime passes Baillie–PSW, so the derived-base rounds run:
  // their buffers once lacked the word the padding to 512 adds (an 8-byte
  // stack overflow under ASan).
  it('proves a 510-word Proth prime prime, through the derived-base rounds', { timeout: 20 * 60_000 }, () => {
    const v = JSON.parse(readFileSync(new URL('./vectors/large-prime.json', import.meta.url), 'utf8')) as { k: number; n: number; bits: number };
    const prime = BigInt(v.k) * 2n ** BigInt(v.n) + 1n;
    expect(prime.toString(2).length).toBe(v.bits);
    expect(Math.ceil(v.bits / 64)).toBe(510);
    expect(n!.isProbablePrime(prime, 1)).toBe(true);
  });
});
