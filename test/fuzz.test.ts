// Property-based tests (fast-check). Valid inputs: the native and TS backends
// agree with each other and with independent oracles. Invalid inputs to the
// exported functions: only a TypeError or RangeError with a message, never
// another error, a crash or a hang. Runs are bounded; the seed is random per
// run unless FUZZ_SEED is set, and fast-check prints it with any failure.
import { checkPrimeSync, createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import * as api from '../src/index.ts';
import { native } from '../src/native.ts';
import { textbookPowMod } from './helpers/number-theory.ts';
import { describeBackends, hasNative } from './helpers/backends.ts';

afterAll(() => api.closePool());

const seed = process.env.FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED);
fc.configureGlobal({ seed, numRuns: 100, endOnFailure: true });

const bigintBits = (maxBits: number): fc.Arbitrary<bigint> => fc.integer({ min: 2, max: maxBits }).chain((bits) => fc.bigInt({ min: 1n << BigInt(bits - 1), max: (1n << BigInt(bits)) - 1n }));

describeBackends('valid inputs agree with independent oracles', (backend) => {
  it('solvePow: the solution meets the difficulty by node:crypto, and is the same on every backend', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 90, unit: 'grapheme' }), fc.integer({ min: 0, max: 3 }), async (nonce, difficulty) => {
        const r = await api.solvePow({ nonce, difficulty }, { backend, threads: 1 });
        expect(
          createHash('sha256')
            .update(nonce + r.solution)
            .digest('hex')
            .startsWith('0'.repeat(difficulty)),
        ).toBe(true);
        if (backend === 'native') expect((await api.solvePow({ nonce, difficulty }, { backend: 'js', threads: 1 })).solution).toBe(r.solution);
      }),
      { numRuns: 40 },
    );
  });

  it('isProbablePrimeSync agrees with node:crypto checkPrime', () => {
    fc.assert(
      fc.property(bigintBits(600), (n) => {
        expect(api.isProbablePrimeSync(n, { backend })).toBe(checkPrimeSync(n, { checks: 40 }));
      }),
      { numRuns: 300 },
    );
  });

  it('sha256 agrees with node:crypto on any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const kernel = backend === 'js' ? 'js' : undefined;
        expect(Buffer.from(api.sha256(bytes, kernel ? { kernel } : {})).toString('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
      }),
    );
  });
});

describe.runIf(hasNative)('native modPow', () => {
  it('agrees with textbook square-and-multiply on random odd moduli', () => {
    fc.assert(
      fc.property(bigintBits(1100), bigintBits(300), bigintBits(1100), (m0, e, b0) => {
        const m = m0 | 1n;
        fc.pre(m > 1n);
        const b = b0 % m;
        expect(native()!.modPow(b, e, m)).toBe(textbookPowMod(b, e, m));
      }),
      { numRuns: 200 },
    );
  });
});

describe('client primitives against independent implementations', () => {
  it('base85: decode(encode(x)) = x, 4 bytes to 5 characters, and the characters are the RFC 1924 alphabet', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = api.b85encode(bytes);
        expect(text).toMatch(/^[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]*$/);
        expect(text.length).toBe(Math.floor(bytes.length / 4) * 5 + (bytes.length % 4 ? (bytes.length % 4) + 1 : 0));
        expect(api.b85decode(text)).toEqual(bytes);
      }),
    );
  });

  it('TOTP equals RFC 4226 truncation over node:crypto HMAC-SHA3-512', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 80 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.integer({ min: 1, max: 10 }),
        (secret, t0, dt, digits) => {
          const counter = Math.floor(dt / 256);
          const msg = Buffer.alloc(8);
          msg.writeBigUInt64BE(BigInt(counter));
          const h = createHmac('sha3-512', secret).update(msg).digest();
          const o = h[h.length - 1]! & 0x0f;
          const bin = h.readUInt32BE(o) & 0x7fffffff;
          expect(api.totpCode(secret, { t0, now: t0 + dt, digits })).toBe(String(bin % 10 ** digits).padStart(digits, '0'));
        },
      ),
    );
  });
});

/** Messages the engine writes, not us: a sign that an argument went unchecked. */
const ENGINE_MESSAGE = /Cannot read propert|Cannot convert|is not a function|is not iterable|is not a constructor|Invalid array length|Maximum call stack/;

/** An options object's unknown key: named as options.KEY or options["KEY"] (or opts.…), whatever the function's argument names. */
const UNKNOWN_OPTION = /^(options|opts)(\.[\w$]+|\[".*"\]) is not an option of /s;

/** A call that must either return or throw/reject a TypeError or RangeError of ours naming an argument, within 10 s. */
async function onlyArgumentErrors(call: () => unknown, names: RegExp): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const r = call();
    const settled = r instanceof Promise ? r : typeof (r as AsyncIterator<unknown>)?.next === 'function' ? (r as AsyncIterator<unknown>).next() : undefined;
    if (settled) {
      await Promise.race([settled, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('hung for 10 s')), 10_000)))]);
    }
  } catch (err) {
    expect(err, String(err)).toSatisfy((e: unknown) => e instanceof TypeError || e instanceof RangeError);
    const message = (err as Error).message;
    expect(message).not.toMatch(ENGINE_MESSAGE);
    if (!UNKNOWN_OPTION.test(message)) expect(message).toMatch(names);
  } finally {
    clearTimeout(timer);
  }
}

// Garbage that is never a valid argument of these functions by accident in a way that runs long:
// numbers are bounded so a random "difficulty" or "bits" cannot start hours of work.
const garbage = fc.oneof(
  fc.anything({ maxDepth: 2, withBigInt: true, withNullPrototype: true, withMap: true, withTypedArray: true }),
  fc.constantFrom(null, undefined, NaN, -1, 1.5, '', '0x', '-0', Infinity, 2n ** 70000n, Symbol('s'), () => 1, [], {}),
);

describe('invalid inputs give only TypeError or RangeError', () => {
  const POW = /^(challenge|nonce|difficulty|options|threads|backend|signal|onProgress|maxAttempts) /;
  const PRIME = /^(n|p|options|rounds|backend) /;
  const SEARCH = /^(options|bits|seed|count|startIndex|index|slice|threads|backend|rounds|signal|onProgress)\b/;
  const calls: [string, RegExp, (a: unknown, b: unknown) => unknown][] = [
    ['solvePow(a, b)', POW, (a, b) => api.solvePow(a as never, { maxAttempts: 10_000n, ...(typeof b === 'object' ? (b as object) : {}) })],
    ['solvePow(ok, b)', POW, (_a, b) => api.solvePow({ nonce: 'n', difficulty: 1 }, b as never)],
    ['verifyPow(a, b, a)', /^(nonce|difficulty|solution) /, (a, b) => api.verifyPow(a as never, b as never, a as never)],
    ['candidate(powLayout(3), a)', /^k /, (a) => api.candidate(api.powLayout(3), a as never)],
    ['candidate(a, b)', /^(layout|k) /, (a, b) => api.candidate(a as never, b as never)],
    ['powLayout(a)', /^nonceLength /, (a) => api.powLayout(a as never)],
    ['sha256(a, b)', /^(data|options|kernel) /, (a, b) => api.sha256(a as never, b as never)],
    ['isProbablePrimeSync(a, b)', PRIME, (a, b) => api.isProbablePrimeSync(a as never, b as never)],
    ['isSafePrimeSync(a, b)', PRIME, (a, b) => api.isSafePrimeSync(a as never, b as never)],
    ['isSafePrime(a, b)', PRIME, (a, b) => api.isSafePrime(a as never, b as never)],
    ['searchSafePrimeSlice(a)', SEARCH, (a) => api.searchSafePrimeSlice(a as never)],
    ['searchSafePrimeSlice({bits: 64, seed: 1, index: a, slice: b})', SEARCH, (a, b) => api.searchSafePrimeSlice({ bits: 64, seed: 1n, index: a as never, slice: b as never })],
    ['findSafePrime(a)', SEARCH, (a) => api.findSafePrime(a as never)],
    ['searchSafePrimes(a)', SEARCH, (a) => api.searchSafePrimes(a as never)],
    ['generateDhParams(a)', SEARCH, (a) => api.generateDhParams(a as never)],
    ['b85encode(a)', /^bytes /, (a) => api.b85encode(a as never)],
    ['b85decode(a)', /^(text|base85)/, (a) => api.b85decode(a as never)],
    ['totpCode(a, b)', /^(secret|opts|t0|now|digits|period) /, (a, b) => api.totpCode(a as never, b as never)],
    ['totpCounter(a)', /^(opts|t0|now|period) /, (a) => api.totpCounter(a as never)],
    ['sanitizeFilename(a)', /^name /, (a) => api.sanitizeFilename(a as never)],
    ['attributionText(a)', /^attribution /, (a) => api.attributionText(a as never)],
    ['redact(a)', /^entry /, (a) => api.redact(a as never)],
    ['new QuestionPipeline(a)', /^(options|stateDir|deliver|client) /, (a) => new api.QuestionPipeline(a as never)],
    ['new QuestionClient(a)', /^(options|baseUrl|limits|homepageUrl|stateDir|timeoutMs|attempts|backoffMs|maxWaitMs)/, (a) => new api.QuestionClient(a as never)],
  ];
  it.each(calls)('%s', async (_name, names, call) => {
    await fc.assert(
      fc.asyncProperty(garbage, garbage, async (a, b) => onlyArgumentErrors(() => call(a, b), names)),
      { numRuns: 150 },
    );
  });
});
