// The server side of proof of work: createChallenge / verifySolution. Oracles
// are node:crypto (the MAC over the decoded header, the SHA-256 of the
// proof); every refusal must be a ChallengeError with the reason the check
// meant, never another kind of throw. fast-check's seed is printed on failure.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ChallengeError, type ChallengeRefusal } from '../src/pow/challenge-error.ts';
import { closePool } from '../src/pool/pool.ts';
import { createChallenge, type Challenge } from '../src/pow/challenge.ts';
import { verifySolution, verifySolutionSync, type VerifySolutionOptions } from '../src/pow/challenge-verify.ts';
import { MemoryReplayStore } from '../src/pow/replay-store.ts';
import { solvePow } from '../src/pow/solve.ts';

afterAll(() => closePool());

const seed = process.env.FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED);
fc.configureGlobal({ seed, numRuns: 200, endOnFailure: true });

const KEY = randomBytes(32);
const OTHER = randomBytes(32);
const NOW = 1_800_000_000_000;

const digest = (nonce: string, solution: string): Buffer =>
  createHash('sha256')
    .update(nonce + solution)
    .digest();

/** Leading zero bits of a digest, counted by hand. */
function zeroBits(d: Buffer): number {
  let n = 0;
  for (const byte of d) {
    if (byte === 0) n += 8;
    else return n + Math.clz32(byte) - 24;
  }
  return n;
}

/** The lowest decimal S (from 0 up) whose node:crypto digest's leading zero bits `want` accepts. */
function solveBy(nonce: string, want: (zeros: number, s: string) => boolean): string {
  for (let s = 0; ; s++) if (want(zeroBits(digest(nonce, String(s))), String(s))) return String(s);
}

const fresh = (extra?: Partial<VerifySolutionOptions>): VerifySolutionOptions => ({ keys: KEY, replayStore: new MemoryReplayStore(), now: NOW, ...extra });

/** The refusal's reason, or 'accepted'; any other throw fails the test. */
async function outcome(proof: unknown, options: VerifySolutionOptions): Promise<ChallengeRefusal | 'accepted'> {
  try {
    await verifySolution(proof as never, options);
    return 'accepted';
  } catch (err) {
    if (!(err instanceof ChallengeError)) throw err;
    expect(err.code).toBe('ERR_CHALLENGE_REFUSED');
    return err.reason;
  }
}

/** A difficulty-1 challenge with a node:crypto solution: cheap to make many. */
function solved(extra: Record<string, unknown> = {}): { c: Challenge; solution: string } {
  const c = createChallenge({ keys: KEY, difficulty: 1, now: NOW, ...extra });
  return { c, solution: solveBy(c.nonce, (z) => z >= 4) };
}

describe('createChallenge / verifySolution: the round trip', () => {
  it('solvePow solves the token as the spec says, verifySolution accepts it once, then refuses it as replayed', async () => {
    const c = createChallenge({ keys: KEY, difficulty: 3, now: NOW });
    expect(c).toMatchObject({ unit: 'hex', difficulty: 3, expiresAt: NOW + 16 * 60_000 });
    expect(c.nonce).toMatch(/^[A-Za-z0-9_-]{100}$/);
    const { solution } = await solvePow({ nonce: c.nonce, difficulty: 3 }, { backend: 'js', threads: 1 });
    expect(digest(c.nonce, solution).toString('hex')).toMatch(/^000/);
    const options = fresh();
    await expect(verifySolution({ nonce: c.nonce, solution }, options)).resolves.toEqual({ ok: true, unit: 'hex', difficulty: 3, expiresAt: NOW + 16 * 60_000, audience: undefined });
    expect(await outcome({ nonce: c.nonce, solution }, options)).toBe('replayed');
    // Another solution of the same token is the same token used twice.
    const other = solveBy(c.nonce, (z, s) => z >= 12 && s !== solution);
    expect(await outcome({ nonce: c.nonce, solution: other }, options)).toBe('replayed');
  });

  it('the nonce is the header and an HMAC-SHA-256 of it that node:crypto computes alike', () => {
    const key = 'a text key of more than sixteen bytes';
    const c = createChallenge({ keys: key, bits: 20, ttlMs: 5000, audience: 'example.org', now: NOW });
    const raw = Buffer.from(c.nonce, 'base64url');
    expect(raw.length).toBe(75);
    expect(raw.subarray(43)).toEqual(createHmac('sha256', key).update(raw.subarray(0, 43)).digest());
    expect(raw[0]).toBe(1);
    expect(raw.readUIntBE(5, 6)).toBe(NOW + 5000);
    expect(raw.readUInt16BE(3)).toBe(20);
    expect(raw.subarray(27, 43)).toEqual(createHash('sha256').update('example.org').digest().subarray(0, 16));
    expect(createChallenge({ keys: key, bits: 20, now: NOW }).nonce).not.toBe(c.nonce);
  });

  it('bits: exactly one bit short is insufficient work, enough bits pass; hex digits d are 4d bits', async () => {
    for (const bits of [1, 5, 9, 13]) {
      const c = createChallenge({ keys: KEY, bits, now: NOW });
      expect(c).toMatchObject({ unit: 'bits', bits });
      const short = solveBy(c.nonce, (z) => z === bits - 1);
      const enough = solveBy(c.nonce, (z) => z >= bits);
      expect(await outcome({ nonce: c.nonce, solution: short }, fresh())).toBe('insufficient-work');
      await expect(verifySolution({ nonce: c.nonce, solution: enough }, fresh())).resolves.toMatchObject({ unit: 'bits', bits });
    }
    const c = createChallenge({ keys: KEY, difficulty: 2, now: NOW });
    expect(await outcome({ nonce: c.nonce, solution: solveBy(c.nonce, (z) => z === 7) }, fresh())).toBe('insufficient-work');
    expect(await outcome({ nonce: c.nonce, solution: solveBy(c.nonce, (z) => z >= 8) }, fresh())).toBe('accepted');
  });

  it('expiry: accepted until the last millisecond, refused from expiresAt on', async () => {
    const { c, solution } = solved({ ttlMs: 1000 });
    expect(await outcome({ nonce: c.nonce, solution }, fresh({ now: NOW + 1000 }))).toBe('expired');
    expect(await outcome({ nonce: c.nonce, solution }, fresh({ now: NOW + 10 ** 9 }))).toBe('expired');
    expect(await outcome({ nonce: c.nonce, solution }, fresh({ now: NOW + 999 }))).toBe('accepted');
  });

  it('audience: must match exactly; a bound token needs it, an unbound one is refused where one is required', async () => {
    const bound = solved({ audience: 'a.example' });
    const unbound = solved();
    expect(await outcome({ nonce: bound.c.nonce, solution: bound.solution }, fresh({ audience: 'b.example' }))).toBe('wrong-audience');
    expect(await outcome({ nonce: bound.c.nonce, solution: bound.solution }, fresh())).toBe('wrong-audience');
    expect(await outcome({ nonce: unbound.c.nonce, solution: unbound.solution }, fresh({ audience: 'a.example' }))).toBe('wrong-audience');
    await expect(verifySolution({ nonce: bound.c.nonce, solution: bound.solution }, fresh({ audience: 'a.example' }))).resolves.toMatchObject({ audience: 'a.example' });
  });

  it('key rotation: the first key signs, every key of the list verifies; a key taken out of the list no longer does', async () => {
    const old = solved();
    expect(await outcome({ nonce: old.c.nonce, solution: old.solution }, fresh({ keys: [OTHER, KEY] }))).toBe('accepted');
    const refused = await outcome({ nonce: old.c.nonce, solution: old.solution }, fresh({ keys: [OTHER] }));
    // The key id is one byte: a 1-in-256 chance that OTHER shares it, and then its MAC is wrong.
    expect(refused).toMatch(/^(unknown-key|forged)$/);
    const c = createChallenge({ keys: [OTHER, KEY], difficulty: 1, now: NOW });
    const raw = Buffer.from(c.nonce, 'base64url');
    expect(raw.subarray(43)).toEqual(createHmac('sha256', OTHER).update(raw.subarray(0, 43)).digest());
  });

  it('verifySolutionSync gives the same answers without a promise, and refuses an asynchronous store as a programmer error', () => {
    const { c, solution } = solved();
    const options = fresh();
    expect(verifySolutionSync({ nonce: c.nonce, solution }, options)).toMatchObject({ ok: true });
    expect(() => verifySolutionSync({ nonce: c.nonce, solution }, options)).toThrow(expect.objectContaining({ reason: 'replayed' }));
    const other = solved();
    expect(() => verifySolutionSync({ nonce: other.c.nonce, solution: other.solution }, fresh({ replayStore: { add: async () => true } }))).toThrow(TypeError);
  });

  it('a store may answer with any thenable, not only a Promise', async () => {
    const { c, solution } = solved();
    // A thenable on purpose: stores written for other promise libraries return one.
    // biome-ignore lint/suspicious/noThenProperty: the point of the test
    const thenable = (value: boolean) => ({ then: (resolve: (v: boolean) => void) => resolve(value) });
    expect(await outcome({ nonce: c.nonce, solution }, fresh({ replayStore: { add: () => thenable(true) as never } }))).toBe('accepted');
    expect(await outcome({ nonce: c.nonce, solution }, fresh({ replayStore: { add: () => thenable(false) as never } }))).toBe('replayed');
  });

  it('a store that throws is store-failed (transient), with the cause kept', async () => {
    const { c, solution } = solved();
    const boom = new Error('connection refused');
    const err = await verifySolution({ nonce: c.nonce, solution }, fresh({ replayStore: { add: async () => Promise.reject(boom) } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChallengeError);
    expect(err).toMatchObject({ reason: 'store-failed', transient: true, cause: boom });
  });
});

describe('the bounded in-memory replay store', () => {
  it('when full of unexpired tokens refuses new ones (busy, transient) rather than forget a used one; expired entries make room', async () => {
    const store = new MemoryReplayStore({ maxEntries: 2 });
    const [a, b, c] = [solved({ ttlMs: 1000 }), solved({ ttlMs: 2000 }), solved({ ttlMs: 5000 })];
    const at = (now: number) => ({ keys: KEY, replayStore: store, now });
    expect(await outcome({ nonce: a.c.nonce, solution: a.solution }, at(NOW))).toBe('accepted');
    expect(await outcome({ nonce: b.c.nonce, solution: b.solution }, at(NOW))).toBe('accepted');
    const busy = await verifySolution({ nonce: c.c.nonce, solution: c.solution }, at(NOW + 999)).catch((e: unknown) => e);
    expect(busy).toMatchObject({ reason: 'busy', transient: true });
    // Both used tokens are still refused: nothing was forgotten to make room.
    expect(await outcome({ nonce: a.c.nonce, solution: a.solution }, at(NOW + 999))).toBe('replayed');
    expect(await outcome({ nonce: b.c.nonce, solution: b.solution }, at(NOW + 999))).toBe('replayed');
    // a expires at NOW + 1000: its entry goes, c fits.
    expect(await outcome({ nonce: c.c.nonce, solution: c.solution }, at(NOW + 1000))).toBe('accepted');
    expect(store.size).toBe(2);
    expect(await outcome({ nonce: b.c.nonce, solution: b.solution }, at(NOW + 1500))).toBe('replayed');
  });

  it('expired entries out of insertion order are swept when the store is full', () => {
    const store = new MemoryReplayStore({ maxEntries: 3 });
    expect(store.add('long', NOW + 10_000, NOW)).toBe(true);
    expect(store.add('short', NOW + 10, NOW)).toBe(true);
    expect(store.add('mid', NOW + 5_000, NOW)).toBe(true);
    expect(() => store.add('x', NOW + 10_000, NOW + 5)).toThrow(expect.objectContaining({ reason: 'busy' }));
    expect(store.add('x', NOW + 10_000, NOW + 10)).toBe(true);
    expect(store.add('long', NOW + 10_000, NOW + 10)).toBe(false);
    expect(store.add('mid', NOW + 10_000, NOW + 10)).toBe(false);
  });
});

describe('the in-memory store against a model, in any order and with a clock that steps back', () => {
  /** What a store must answer: a token is good once, never after its expiry by the latest clock seen; full of live tokens, busy. */
  class Model {
    private latest = Number.NEGATIVE_INFINITY;
    private readonly seen = new Map<string, number>();
    constructor(private readonly max: number) {}
    add(id: string, expiresAt: number, now: number): boolean | 'busy' {
      this.latest = Math.max(this.latest, now);
      if (expiresAt <= this.latest || this.seen.has(id)) return false;
      if ([...this.seen.values()].filter((e) => e > this.latest).length >= this.max) return 'busy';
      this.seen.set(id, expiresAt);
      return true;
    }
  }

  it('answers as the model over random adds (ids reused, expiries in any order, the clock going back and forth)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        // A token's expiry is under its MAC: one id, one expiry.
        fc.array(fc.integer({ min: -50, max: 600 }), { minLength: 10, maxLength: 10 }),
        fc.array(fc.record({ id: fc.integer({ min: 0, max: 9 }), step: fc.integer({ min: -120, max: 150 }) }), { maxLength: 60 }),
        (max, expiries, ops) => {
          const store = new MemoryReplayStore({ maxEntries: max });
          const model = new Model(max);
          let now = NOW;
          for (const { id, step } of ops) {
            now += step;
            const expiresAt = NOW + expiries[id]!;
            const want = model.add(`t${id}`, expiresAt, now);
            let got: boolean | 'busy';
            try {
              got = store.add(`t${id}`, expiresAt, now);
            } catch (e) {
              expect(e).toMatchObject({ reason: 'busy' });
              got = 'busy';
            }
            expect(got).toBe(want);
          }
        },
      ),
    );
  });

  it('a used token is refused after the clock steps back, even once a later add dropped its entry', () => {
    const store = new MemoryReplayStore({ maxEntries: 10 });
    expect(store.add('a', NOW + 1000, NOW)).toBe(true);
    // Later: a has expired by this clock and its entry goes.
    expect(store.add('b', NOW + 3000, NOW + 2000)).toBe(true);
    expect(store.size).toBe(1);
    // The verifier's clock steps back to where a is unexpired: a is still refused.
    expect(store.add('a', NOW + 1000, NOW + 500)).toBe(false);
  });
});

describe('whatever the client sends, a ChallengeError', () => {
  it('a proof whose getters or Proxy traps throw is malformed, in both forms', async () => {
    const { c, solution } = solved();
    const getter = Object.defineProperty({ solution }, 'nonce', {
      get() {
        throw new Error('boom');
      },
    });
    const trap = new Proxy(
      { nonce: c.nonce, solution },
      {
        get: () => {
          throw new RangeError('trap');
        },
      },
    );
    const revocable = Proxy.revocable({ nonce: c.nonce, solution }, {});
    revocable.revoke();
    for (const proof of [getter, trap, revocable.proxy]) {
      expect(() => verifySolutionSync(proof as never, fresh())).toThrow(expect.objectContaining({ reason: 'malformed' }));
      expect(await verifySolution(proof as never, fresh()).catch((e: unknown) => e)).toMatchObject({ reason: 'malformed' });
    }
  });

  it('a store that throws a value that cannot be turned into text is still store-failed', async () => {
    const { c, solution } = solved();
    const odd = Object.create(null) as object;
    const store = {
      add: () => {
        throw odd;
      },
    };
    const e = await verifySolution({ nonce: c.nonce, solution }, fresh({ replayStore: store })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ChallengeError);
    expect(e).toMatchObject({ reason: 'store-failed', cause: odd });
  });
});

describe('programmer errors are TypeError/RangeError naming the option', () => {
  it.each([
    [{ difficulty: 1 }, TypeError, /keys/],
    [{ keys: 'short', difficulty: 1 }, RangeError, /keys must be 16 to 1024 bytes/],
    [{ keys: [], difficulty: 1 }, RangeError, /keys must hold/],
    [{ keys: [KEY, 5], difficulty: 1 }, TypeError, /keys\[1\]/],
    [{ keys: KEY }, TypeError, /difficulty/],
    [{ keys: KEY, difficulty: 1, bits: 4 }, TypeError, /exactly one/],
    [{ keys: KEY, difficulty: 65 }, RangeError, /difficulty/],
    [{ keys: KEY, bits: 257 }, RangeError, /bits/],
    [{ keys: KEY, difficulty: 1, ttlMs: 0 }, RangeError, /ttlMs/],
    [{ keys: KEY, difficulty: 1, audience: '' }, RangeError, /audience/],
    [{ keys: KEY, difficulty: 1, ttl: 5 }, TypeError, /ttl is not an option/],
  ])('createChallenge(%o)', (options, kind, message) => {
    expect(() => createChallenge(options as never)).toThrow(kind);
    expect(() => createChallenge(options as never)).toThrow(message);
  });

  it('verifySolution: bad options reject with TypeError/RangeError, before the proof is looked at', async () => {
    const proof = { nonce: 'x', solution: '1' };
    await expect(verifySolution(proof, { keys: 'short' })).rejects.toThrow(RangeError);
    await expect(verifySolution(proof, { keys: KEY, replayStore: {} as never })).rejects.toThrow(/replayStore/);
    await expect(verifySolution(proof, { keys: KEY, audiences: 'x' } as never)).rejects.toThrow(TypeError);
    await expect(verifySolution(proof, undefined as never)).rejects.toThrow(TypeError);
  });
});
