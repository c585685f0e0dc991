// verifySolution under fast-check: tampered, spliced, truncated, oversized,
// garbage, wrong-key and wrong-audience tokens are all refused with a
// ChallengeError carrying the reason the check meant, never another throw.
// The seed is random per run unless FUZZ_SEED is set; fast-check prints it.
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChallengeError, type ChallengeRefusal } from '../src/pow/challenge-error.ts';
import { createChallenge } from '../src/pow/challenge.ts';
import { verifySolution, type VerifySolutionOptions } from '../src/pow/challenge-verify.ts';
import { MemoryReplayStore } from '../src/pow/replay-store.ts';

const seed = process.env.FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED);
fc.configureGlobal({ seed, numRuns: 300, endOnFailure: true });

const KEY = randomBytes(32);
const NOW = 1_800_000_000_000;
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A solution of difficulty `bits` by node:crypto. */
function solve(nonce: string, bits: number): string {
  for (let s = 0; ; s++) {
    const d = createHash('sha256')
      .update(nonce + s)
      .digest();
    if (d.readUInt32BE(0) >>> (32 - bits) === 0) return String(s);
  }
}

interface Issued {
  nonce: string;
  solution: string;
  audience: string | undefined;
}

/** Tokens that differ in every field: difficulty and its unit, expiry, audience. */
const pool: Issued[] = [
  { difficulty: 1 },
  { difficulty: 2, ttlMs: 60_000 },
  { bits: 3, audience: 'a.example' },
  { bits: 6, ttlMs: 5_000, audience: 'b.example' },
  { difficulty: 1, audience: 'a.example', ttlMs: 999_999 },
].map((o) => {
  const c = createChallenge({ keys: KEY, now: NOW, ...o });
  return { nonce: c.nonce, solution: solve(c.nonce, 8), audience: o.audience };
});

const options = (extra?: Partial<VerifySolutionOptions>): VerifySolutionOptions => ({ keys: KEY, replayStore: new MemoryReplayStore(), now: NOW, ...extra });

async function outcome(proof: unknown, extra?: Partial<VerifySolutionOptions>): Promise<ChallengeRefusal | 'accepted'> {
  try {
    await verifySolution(proof as never, options(extra));
    return 'accepted';
  } catch (err) {
    if (!(err instanceof ChallengeError)) throw err;
    return err.reason;
  }
}

const issued = fc.constantFrom(...pool);
const proofOf = (t: Issued) => ({ nonce: t.nonce, solution: t.solution });
const b64char = fc.constantFrom(...B64URL);

describe('verifySolution refuses what it did not issue', () => {
  it('the pool itself is accepted with its own audience (so the refusals below are the changes, not the tokens)', async () => {
    for (const p of pool) expect(await outcome(proofOf(p), { audience: p.audience })).toBe('accepted');
  });

  it('one character changed: forged (or, in the first three characters that spell the version and key id, malformed or unknown-key)', async () => {
    await fc.assert(
      fc.asyncProperty(issued, fc.integer({ min: 0, max: 99 }), b64char, async (t, at, ch) => {
        fc.pre(t.nonce[at] !== ch);
        const nonce = t.nonce.slice(0, at) + ch + t.nonce.slice(at + 1);
        const r = await outcome({ nonce, solution: t.solution }, { audience: 'a.example' });
        if (at >= 3) expect(r).toBe('forged');
        else expect(r).toMatch(/^(malformed|unknown-key|forged)$/);
      }),
    );
  });

  it('a character outside base64url, anywhere: malformed', async () => {
    await fc.assert(
      fc.asyncProperty(issued, fc.integer({ min: 0, max: 99 }), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }), async (t, at, ch) => {
        fc.pre(!B64URL.includes(ch));
        const nonce = t.nonce.slice(0, at) + ch + t.nonce.slice(at + 1);
        expect(await outcome({ nonce, solution: t.solution })).toBe(nonce.length > 100 ? 'oversized' : 'malformed');
      }),
    );
  });

  it('two tokens spliced at any character: forged', async () => {
    await fc.assert(
      fc.asyncProperty(issued, issued, fc.integer({ min: 1, max: 99 }), async (a, b, at) => {
        const nonce = a.nonce.slice(0, at) + b.nonce.slice(at);
        fc.pre(nonce !== a.nonce && nonce !== b.nonce);
        expect(await outcome({ nonce, solution: a.solution }, { audience: 'a.example' })).toBe('forged');
        expect(await outcome({ nonce, solution: b.solution })).toBe('forged');
      }),
    );
  });

  it('a field (or any byte range) of one token moved into another, re-encoded: forged', async () => {
    await fc.assert(
      fc.asyncProperty(issued, issued, fc.integer({ min: 0, max: 74 }), fc.integer({ min: 0, max: 74 }), fc.integer({ min: 1, max: 40 }), async (a, b, from, to, length) => {
        const target = Buffer.from(a.nonce, 'base64url');
        const source = Buffer.from(b.nonce, 'base64url');
        source.copy(target, to, from, Math.min(75, from + length));
        const nonce = target.toString('base64url');
        fc.pre(nonce !== a.nonce && nonce !== b.nonce);
        // Bytes written over the version or the key id may name no version or no key; past them, the MAC fails.
        expect(await outcome({ nonce, solution: a.solution }, { audience: 'a.example' })).toMatch(to > 1 ? /^forged$/ : /^(forged|unknown-key|malformed)$/);
      }),
    );
  });

  it('truncated, or with anything appended: malformed or oversized, before any hashing', async () => {
    await fc.assert(
      fc.asyncProperty(issued, fc.integer({ min: 0, max: 99 }), fc.string({ minLength: 1, maxLength: 300 }), async (t, at, tail) => {
        expect(await outcome({ nonce: t.nonce.slice(0, at), solution: t.solution })).toBe('malformed');
        expect(await outcome({ nonce: t.nonce + tail, solution: t.solution })).toBe('oversized');
        expect(await outcome({ nonce: t.nonce, solution: t.solution + '0'.repeat(33 - t.solution.length) })).toBe('oversized');
      }),
    );
    expect(await outcome({ nonce: pool[0]!.nonce.repeat(100_000), solution: '1' })).toBe('oversized');
  });

  it('a solution that is not 1–32 ASCII digits: malformed', async () => {
    await fc.assert(
      fc.asyncProperty(issued, fc.string({ maxLength: 32 }), async (t, solution) => {
        fc.pre(!/^[0-9]{1,32}$/.test(solution));
        expect(await outcome({ nonce: t.nonce, solution })).toBe('malformed');
      }),
    );
  });

  it('a key it does not hold: unknown-key, or forged when its one-byte id happens to match', async () => {
    await fc.assert(
      fc.asyncProperty(issued, fc.uint8Array({ minLength: 16, maxLength: 80 }), async (t, key) => {
        fc.pre(!Buffer.from(key).equals(KEY));
        expect(await outcome(proofOf(t), { keys: key, audience: 'a.example' })).toMatch(/^(unknown-key|forged)$/);
      }),
    );
  });

  it('an audience that is not the token’s: wrong-audience', async () => {
    await fc.assert(
      fc.asyncProperty(issued, fc.string({ minLength: 1, maxLength: 50 }), async (t, audience) => {
        fc.pre(audience !== 'a.example' && audience !== 'b.example' && !/[\uD800-\uDFFF]/.test(audience));
        expect(await outcome(proofOf(t), { audience })).toBe('wrong-audience');
      }),
    );
  });

  it('anything at all as the proof: a ChallengeError (malformed, oversized, …), never another throw', async () => {
    const nonces = fc.oneof(fc.string({ maxLength: 120 }), fc.string({ minLength: 100, maxLength: 100, unit: b64char }), fc.anything());
    const solutions = fc.oneof(fc.string({ maxLength: 40 }), fc.stringMatching(/^[0-9]{1,32}$/), fc.anything());
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.record({ nonce: nonces, solution: solutions }), fc.anything()), async (proof) => {
        expect(await outcome(proof)).not.toBe('accepted');
      }),
    );
  });
});
