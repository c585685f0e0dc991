// The public boundary: every non-negative number has a verdict, indexes are
// 64-bit and refused beyond, and malformed arguments are TypeError/RangeError
// naming the argument instead of "Cannot read properties of …".
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AdClient,
  Keystore,
  PowExhaustedError,
  PrimeRegistryClient,
  QuestionClient,
  QuestionPipeline,
  Registrar,
  candidate,
  closePool,
  decryptKey,
  decryptKeyDetailed,
  encryptKey,
  findSafePrime,
  generateDhParams,
  isProbablePrime,
  isProbablePrimeSync,
  isSafePrime,
  isSafePrimeSync,
  powLayout,
  searchSafePrimeRange,
  searchSafePrimeSlice,
  searchSafePrimes,
  sha256,
  solvePow,
  totpCode,
  totpCounter,
} from '../src/index.ts';
import { ManualClock } from '../src/clients/clock.ts';
import { AD_CLIENT_OPTIONS } from '../src/clients/ads/client.ts';
import { SERVICE_CLIENT_OPTIONS, type ServiceClientOptions } from '../src/clients/http/client-options.ts';
import { QUESTION_CLIENT_OPTIONS, QUESTION_POW_OPTIONS } from '../src/clients/question/options.ts';
import { REGISTRY_CLIENT_OPTIONS } from '../src/clients/registry/options.ts';
import { DECRYPT_KEY_OPTIONS, ENCRYPT_KEY_OPTIONS } from '../src/clients/registry/key-crypto.ts';
import { KEYSTORE_OPTIONS } from '../src/clients/registry/keystore.ts';
import { TOTP_OPTIONS } from '../src/clients/registry/totp.ts';
import { SHA256_OPTIONS } from '../src/hash/digest.ts';
import { SOLVE_OPTIONS } from '../src/pow/solve.ts';
import { PRIME_CHECK_OPTIONS } from '../src/prime/check.ts';
import { DH_PARAMS_OPTIONS } from '../src/prime/dhparam.ts';
import { RANGE_SEARCH_OPTIONS } from '../src/prime/range-search.ts';
import { FIND_SAFE_PRIME_OPTIONS, SEARCH_SAFE_PRIMES_OPTIONS } from '../src/prime/search.ts';
import { SEARCH_OPTIONS } from '../src/prime/search-options.ts';
import { SLICE_OPTIONS } from '../src/prime/slice-search.ts';
import { optionNames } from '../src/option-checks.ts';
import { backends } from './helpers/backends.ts';
import { isPrimeByTrialDivision } from './helpers/number-theory.ts';
import { tempDir } from './helpers/tmp.ts';

afterAll(() => closePool());

describe('small numbers get verdicts', () => {
  it.each(backends)('0 to 2000 agree with trial division (%s)', (backend) => {
    for (let n = 0; n <= 2000; n++) {
      const safe = isPrimeByTrialDivision(n) && n >= 5 && isPrimeByTrialDivision((n - 1) / 2);
      expect(isProbablePrimeSync(BigInt(n), { backend }), String(n)).toBe(isPrimeByTrialDivision(n));
      expect(isSafePrimeSync(BigInt(n), { backend }), String(n)).toBe(safe);
    }
  });

  it('0 to 4 are not safe primes and 5 is, on the pool too', async () => {
    expect(await Promise.all([0n, 1n, 2n, 3n, 4n, 5n].map((p) => isSafePrime(p)))).toEqual([false, false, false, false, false, true]);
  });
});

describe('indexes are 64-bit', () => {
  const slice = { bits: 64, seed: 1n, slice: 0 };
  it.each([2n ** 64n, 2n ** 70000n, -1n])('searchSafePrimeSlice refuses index %s', (index) => {
    expect(() => searchSafePrimeSlice({ ...slice, index })).toThrow(RangeError);
    expect(() => searchSafePrimeSlice({ ...slice, index })).toThrow(/index must be from 0 to 2\^64 - 1/);
  });

  it('the largest index is searched, and differs from index 0', () => {
    const last = searchSafePrimeSlice({ ...slice, index: 2n ** 64n - 1n });
    const first = searchSafePrimeSlice({ ...slice, index: 0n });
    expect(last.offset === null || first.offset === null || last.prime !== first.prime).toBe(true);
  });

  it('findSafePrime names its own argument', async () => {
    await expect(findSafePrime({ bits: 64, index: 2n ** 64n })).rejects.toThrow(/^index must be/);
  });
});

describe('malformed arguments', () => {
  const layout = powLayout(4);
  it.each([
    ['candidate(layout, undefined)', () => candidate(layout, undefined as never), TypeError, /^k must be a bigint/],
    ["candidate(layout, 'abc')", () => candidate(layout, 'abc' as never), TypeError, /^k must be a bigint/],
    ['candidate(layout, -1n)', () => candidate(layout, -1n), RangeError, /^k must be from 0/],
    ['candidate(null, 1n)', () => candidate(null as never, 1n), TypeError, /^layout must be/],
    ['powLayout(-1)', () => powLayout(-1), RangeError, /nonceLength/],
    ['powLayout(1.5)', () => powLayout(1.5), RangeError, /nonceLength/],
    ['powLayout(null)', () => powLayout(null as never), TypeError, /nonceLength/],
    ["powLayout('')", () => powLayout('' as never), TypeError, /nonceLength/],
    ['sha256(u8, null)', () => sha256(new Uint8Array(1), null as never), TypeError, /^options must be an object/],
    ['isSafePrimeSync(7n, 0)', () => isSafePrimeSync(7n, 0 as never), TypeError, /^options must be an object/],
  ] as const)('%s', (_name, call, type, message) => {
    expect(call).toThrow(type);
    expect(call).toThrow(message);
  });

  it.each([null, 0, 'fast', []])('solvePow(ok, %j) is a TypeError naming options', async (options) => {
    await expect(solvePow({ nonce: 'n', difficulty: 1 }, options as never)).rejects.toThrow(/^options must be an object/);
  });

  it('findSafePrime(undefined) is a TypeError naming options; a range whose to is below its from names to', async () => {
    await expect(findSafePrime(undefined as never)).rejects.toThrow(expect.objectContaining({ name: 'TypeError', argument: 'options' }));
    await expect(searchSafePrimeRange({ bits: 64, seed: 1n, index: 0, from: 10, to: 5 })).rejects.toThrow(expect.objectContaining({ name: 'RangeError', argument: 'to' }));
  });
});

// A misspelled option would otherwise be ignored and its default used:
// `maxAttempt` would search for ever, `thread: 2` would use every core.

/** Bounds any call that would start a search if its options were taken. */
const soon = () => AbortSignal.timeout(3_000);

/** A call given an unknown option key: a TypeError naming the key, where it was refused, the option it looks like and every option taken, before any work starts. */
async function expectUnknownOption(where: string, key: string, near: string, call: () => unknown): Promise<void> {
  const started = performance.now();
  let error: unknown;
  try {
    await call();
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(TypeError);
  const message = (error as Error).message;
  expect(message).toMatch(new RegExp(`^(options|opts|pow)\\.${key} is not an option of ${where}\\b`));
  if (near) expect(message).toContain(`(did you mean ${near}?)`);
  // The accepted ones are listed.
  expect(message).toMatch(/; its options are \w+(, \w+)*$/);
  // Refused before any work (no search, no request).
  expect(performance.now() - started).toBeLessThan(1_000);
}

describe('unknown option keys are refused where they are given', () => {
  const subkey = new Uint8Array(64).fill(7);

  const calls: [string, string, string, () => unknown][] = [
    ['solvePow', 'maxAttempt', 'maxAttempts', () => solvePow({ nonce: 'x', difficulty: 64 }, { maxAttempt: 1000, threads: 1, signal: soon() } as never)],
    ['solvePow', 'thread', 'threads', () => solvePow({ nonce: 'x', difficulty: 64 }, { thread: 2, maxAttempts: 1000, signal: soon() } as never)],
    ['sha256', 'kernal', 'kernel', () => sha256(new Uint8Array(1), { kernal: 'js' } as never)],
    ['isProbablePrimeSync', 'round', 'rounds', () => isProbablePrimeSync(7n, { round: 2 } as never)],
    ['isProbablePrime', 'backnd', 'backend', () => isProbablePrime(7n, { backnd: 'js' } as never)],
    ['isSafePrimeSync', 'rounds_', 'rounds', () => isSafePrimeSync(7n, { rounds_: 2 } as never)],
    ['isSafePrime', 'Backend', 'backend', () => isSafePrime(7n, { Backend: 'js' } as never)],
    ['findSafePrime', 'cnt', '', () => findSafePrime({ bits: 64, seed: 1n, signal: soon(), cnt: 2 } as never)],
    ['searchSafePrimes', 'bogus', '', () => searchSafePrimes({ bits: 64, count: 1, seed: 1n, signal: soon(), bogus: 1 } as never).next()],
    ['searchSafePrimes', 'strid', 'stride', () => searchSafePrimes({ bits: 64, count: 1, seed: 1n, signal: soon(), strid: 2 } as never).next()],
    ['generateDhParams', 'seeds', 'seed', () => generateDhParams({ bits: 512, seeds: 1n, signal: soon() } as never)],
    ['generateDhParams', 'stream', '', () => generateDhParams({ bits: 512, seed: 1n, stream: 2, signal: soon() } as never)],
    ['searchSafePrimeRange', 'too', 'to', () => searchSafePrimeRange({ bits: 64, seed: 1n, index: 0, from: 0, to: 10, too: 20, signal: soon() } as never)],
    ['searchSafePrimeSlice', 'slices', 'slice', () => searchSafePrimeSlice({ bits: 64, seed: 1n, index: 0, slice: 0, slices: 4 } as never)],
    ['totpCode', 'digit', 'digits', () => totpCode(new Uint8Array(8), { t0: 0, now: 1000, digit: 8 } as never)],
    ['totpCounter', 'periods', 'period', () => totpCounter({ t0: 0, now: 1000, periods: 30 } as never)],
    ['encryptKey', 'nonse', 'nonce', () => encryptKey(new Uint8Array(4), subkey, { now: 1000, nonse: new Uint8Array(12) } as never)],
    ['decryptKey', 'tryPrev', 'tryPrevious', () => decryptKey('', subkey, { now: 1000, tryPrev: false } as never)],
    ['decryptKeyDetailed', 'tryPrevious_', 'tryPrevious', () => decryptKeyDetailed('', subkey, { now: 1000, tryPrevious_: false } as never)],
  ];

  it.each(calls)('%s refuses %s', expectUnknownOption);

  it('the message lists every accepted option, and an unknown key given as undefined is refused too', async () => {
    await expect(solvePow({ nonce: 'x', difficulty: 1 }, { maxAttempt: undefined } as never)).rejects.toThrow(
      'options.maxAttempt is not an option of solvePow (did you mean maxAttempts?); its options are threads, backend, signal, onProgress, maxAttempts',
    );
    // A key that is no identifier is quoted.
    expect(() => sha256(new Uint8Array(1), { 'no such': 1 } as never)).toThrow(/^options\["no such"\] is not an option of sha256; its options are kernel$/);
    // A known key given as undefined takes its default.
    expect((await solvePow({ nonce: 'x', difficulty: 1 }, { maxAttempts: undefined, threads: undefined })).solution).toMatch(/^[0-9]+$/);
  });

  it('the option lists are checked against their types at compile time', () => {
    // @ts-expect-error: b is an option the list leaves out
    optionNames<{ a?: number; b?: number }>()(['a']);
    // @ts-expect-error: c is not an option
    optionNames<{ a?: number; b?: number }>()(['a', 'b', 'c']);
    expect(optionNames<{ a?: number; b?: number }>()(['b', 'a'])).toEqual(['b', 'a']);
  });
});

// Every documented option is still taken: one call with each key set to a good value.
describe('every known option is accepted', () => {
  const search = { bits: 64, seed: 1n, threads: 1, backend: 'js', rounds: 1, stream: 2, signal: new AbortController().signal, onProgress: () => {} } as const;

  const keysOf = (o: object) => Object.keys(o).sort();

  it('the search options hold exactly the keys these calls give', () => {
    expect(keysOf(search)).toEqual([...SEARCH_OPTIONS].sort());
  });

  it('solvePow, sha256 and the prime checks', async () => {
    const pow = { threads: 1, backend: 'js', signal: new AbortController().signal, onProgress: () => {}, maxAttempts: 10 } as const;
    expect(keysOf(pow)).toEqual([...SOLVE_OPTIONS].sort());
    await expect(solvePow({ nonce: 'x', difficulty: 64 }, pow)).rejects.toThrow(PowExhaustedError);
    expect(SHA256_OPTIONS).toEqual(['kernel']);
    expect(sha256(new Uint8Array(1), { kernel: 'js' })).toHaveLength(32);
    const check = { rounds: 1, backend: 'js' } as const;
    expect(keysOf(check)).toEqual([...PRIME_CHECK_OPTIONS].sort());
    expect(isProbablePrimeSync(23n, check)).toBe(true);
    expect(isSafePrimeSync(23n, check)).toBe(true);
    expect(await isProbablePrime(23n, check)).toBe(true);
    expect(await isSafePrime(23n, check)).toBe(true);
  });

  it('the safe-prime searches', async () => {
    const many = { ...search, count: 1, startIndex: 0, stride: 1 };
    expect(keysOf(many)).toEqual([...SEARCH_SAFE_PRIMES_OPTIONS].sort());
    const found: bigint[] = [];
    for await (const r of searchSafePrimes(many)) found.push(r.prime);
    expect(found).toHaveLength(1);
    const one = { ...search, index: 0 };
    expect(keysOf(one)).toEqual([...FIND_SAFE_PRIME_OPTIONS].sort());
    expect(await findSafePrime(one)).toBe(found[0]);
    const range = { ...search, index: 0, from: 0, to: 1, keep: 'sshGenerator' } as const;
    const { onProgress: _progress, ...rangeOptions } = range;
    expect(keysOf(rangeOptions)).toEqual([...RANGE_SEARCH_OPTIONS].sort());
    expect(await searchSafePrimeRange(rangeOptions)).toMatchObject({ sieved: expect.any(Number) });
    const slice = { bits: 64, seed: 1n, index: 0, slice: 0, backend: 'js', rounds: 1, stream: 2 } as const;
    expect(keysOf(slice)).toEqual([...SLICE_OPTIONS].sort());
    expect(searchSafePrimeSlice(slice).sliceLength).toBeGreaterThan(0);
    const { stream: _stream, ...dh } = { ...search, bits: 512, backend: 'auto' as const };
    expect(keysOf(dh)).toEqual([...DH_PARAMS_OPTIONS].sort());
    expect((await generateDhParams(dh)).g).toBe(2n);
  });

  it('the registry crypto', () => {
    const totp = { t0: 0, now: 1000, digits: 8, period: 30 };
    expect(keysOf(totp)).toEqual([...TOTP_OPTIONS].sort());
    expect(totpCode(new Uint8Array(8), totp)).toMatch(/^[0-9]{8}$/);
    expect(totpCounter(totp)).toBe(33);
    const subkey = new Uint8Array(64).fill(7);
    const enc = { now: 1000, nonce: new Uint8Array(12) };
    expect(keysOf(enc)).toEqual([...ENCRYPT_KEY_OPTIONS].sort());
    const dec = { now: 1000, tryPrevious: false };
    expect(keysOf(dec)).toEqual([...DECRYPT_KEY_OPTIONS].sort());
    expect(decryptKey(encryptKey(new Uint8Array([1, 2]), subkey, enc), subkey, dec)).toEqual(new Uint8Array([1, 2]));
    expect(decryptKeyDetailed(encryptKey(new Uint8Array([3]), subkey, enc), subkey, dec).window).toBe('current');
  });
});

// The clients and the keystore: unknown options, and arguments checked in the constructor.
describe('the clients refuse unknown options and check their arguments where they are given', () => {
  const dir = tempDir('powprime-options-');
  const client = { baseUrl: 'http://127.0.0.1:9', stateDir: dir, limits: 'off' } as const;

  const calls: [string, string, string, () => unknown][] = [
    ['QuestionClient', 'timeotMs', 'timeoutMs', () => new QuestionClient({ ...client, timeotMs: 5 } as never)],
    ['QuestionClient', 'homepage', 'homepageUrl', () => new QuestionClient({ ...client, homepage: 'https://x.example/' } as never)],
    ['QuestionClient', 'thread', 'threads', () => new QuestionClient({ ...client, pow: { thread: 2 } } as never)],
    ['PrimeRegistryClient', 'primeEncodng', 'primeEncoding', () => new PrimeRegistryClient({ ...client, primeEncodng: 'hex' } as never)],
    ['PrimeRegistryClient', 'attempt', 'attempts', () => new PrimeRegistryClient({ ...client, attempt: 1 } as never)],
    ['AdClient', 'indexMaxAge', 'indexMaxAgeMs', () => new AdClient({ ...client, indexMaxAge: 5 } as never)],
    ['AdClient', 'maxWait', 'maxWaitMs', () => new AdClient({ ...client, maxWait: 5 } as never)],
    ['Keystore', 'lockWait', 'lockWaitMs', () => new Keystore(path.join(dir, 'keys.json'), { lockWait: 5 } as never)],
    ['query', 'signl', 'signal', () => new QuestionClient(client).query('a prompt', { signl: soon() } as never)],
    ['config', 'sigal', 'signal', () => new QuestionClient(client).config({ sigal: soon() } as never)],
    ['page', 'per_page', 'perPage', () => new QuestionClient(client).page(1, { per_page: 5 } as never)],
    ['QuestionPipeline', 'maxFailure', 'maxFailures', () => new QuestionPipeline({ client: new QuestionClient(client), stateDir: dir, maxFailure: 2 } as never)],
  ];

  it.each(calls)('%s refuses %s', expectUnknownOption);

  it('an unknown key given as undefined is refused', () => {
    expect(() => new QuestionClient({ ...client, bogus: undefined } as never)).toThrow(expect.objectContaining({ argument: 'options.bogus' }));
  });

  it('nested pow options are checked by the QuestionClient constructor, not by the first query()', () => {
    expect(() => new QuestionClient({ ...client, pow: { threads: 0 } })).toThrow(RangeError);
    expect(() => new QuestionClient({ ...client, pow: { threads: 0 } })).toThrow(/^pow\.threads must be an integer from 1/);
    expect(() => new QuestionClient({ ...client, pow: { backend: 'gpu' as never } })).toThrow(/^pow\.backend must be one of/);
    expect(() => new QuestionClient({ ...client, pow: null as never })).toThrow(/^pow must be \{threads\?, backend\?\}/);
  });

  it('Registrar and Keystore check their arguments in the constructor', () => {
    const keystore = new Keystore(path.join(dir, 'registrar.json'));
    const registry = new PrimeRegistryClient(client);
    expect(() => new Registrar(null as never, null as never)).toThrow(expect.objectContaining({ name: 'TypeError', argument: 'client' }));
    expect(() => new Registrar(null as never, null as never)).toThrow(/^client must be a PrimeRegistryClient \(got null\)/);
    expect(() => new Registrar(registry, {} as never)).toThrow(/^keystore must be a Keystore/);
    expect(() => new Registrar(keystore as never, registry as never)).toThrow(/^client must be a PrimeRegistryClient/);
    expect(new Registrar(registry, keystore).keystore).toBe(keystore);
    expect(() => new (Keystore as unknown as new () => Keystore)()).toThrow(expect.objectContaining({ name: 'TypeError', argument: 'file' }));
    expect(() => new Keystore('')).toThrow(/^file must be a non-empty path/);
    expect(() => new Keystore(path.join(dir, 'k.json'), { lockWaitMs: -1 })).toThrow(RangeError);
    expect(() => new Keystore(path.join(dir, 'k.json'), null as never)).toThrow(/^opts must be an object/);
    // A folder for the file, or a path through a file: named, not the OS's EISDIR or ENOTDIR at the first read.
    expect(() => new Keystore(dir)).toThrow(expect.objectContaining({ name: 'RangeError', argument: 'file' }));
    expect(() => new Keystore(dir)).toThrow(/ is a folder\)$/);
    writeFileSync(path.join(dir, 'plain'), '');
    expect(() => new Keystore(path.join(dir, 'plain', 'k.json'))).toThrow(/ runs through a file\)$/);
  });

  it('a client given a file, or a path through one, as its state dir says so in the constructor', () => {
    writeFileSync(path.join(dir, 'plain'), '');
    for (const stateDir of [path.join(dir, 'plain'), path.join(dir, 'plain', 'state')]) {
      for (const make of [() => new QuestionClient({ ...client, stateDir }), () => new AdClient({ ...client, stateDir }), () => new PrimeRegistryClient({ ...client, stateDir })]) {
        expect(make).toThrow(expect.objectContaining({ name: 'RangeError', argument: 'stateDir' }));
        expect(make).toThrow(/^stateDir must be a folder, or a path where one can be made/);
      }
    }
  });

  it('QuestionPipeline checks its options, and its methods their arguments, before anything is saved', async () => {
    const stateDir = tempDir('powprime-pipeline-args-');
    const opts = { client: new QuestionClient({ ...client, stateDir }), stateDir };
    const refused: [Record<string, unknown>, typeof TypeError, RegExp][] = [
      [{ client: {} }, TypeError, /^client must be a QuestionClient \(got an object\)$/],
      [{ maxFailures: 0 }, RangeError, /^maxFailures must be a whole number from 1 to 1000 \(got 0\)$/],
      [{ maxFailures: '5' }, TypeError, /^maxFailures must be/],
      [{ backoffMs: -1 }, RangeError, /^backoffMs must be a finite number of milliseconds of at least 0 \(got -1\)$/],
      [{ firstCheckAfterMs: Number.NaN }, RangeError, /^firstCheckAfterMs /],
      [{ maxCheckIntervalMs: 0 }, RangeError, /^maxCheckIntervalMs /],
      [{ giveUpAfterMs: Number.POSITIVE_INFINITY }, RangeError, /^giveUpAfterMs /],
      [{ deliver: 'yes' }, TypeError, /^deliver must be a function/],
    ];
    for (const [bad, kind, message] of refused) {
      expect(() => new QuestionPipeline({ ...opts, ...bad } as never)).toThrow(kind);
      expect(() => new QuestionPipeline({ ...opts, ...bad } as never)).toThrow(message);
    }
    const pipeline = new QuestionPipeline(opts);
    try {
      expect(() => pipeline.enqueue('a prompt', 5 as never)).toThrow(/^key must be a string \(got 5\)$/);
      expect(() => pipeline.enqueue('a prompt', '')).toThrow(RangeError);
      expect(() => pipeline.enqueue('   ')).toThrow(/^prompt must be a non-empty string/);
      expect(() => pipeline.withdraw(['a'] as never)).toThrow(/^keep must be a Set of the keys to keep/);
      expect(() => pipeline.adoptKey(7 as never, 'a prompt')).toThrow(/^formerKey must be a string/);
      await expect(pipeline.run({ sig: 1 } as never)).rejects.toThrow(/sig is not an option of run\(\)/);
      await expect(pipeline.run({ until: 'x' } as never)).rejects.toThrow(/^until must be a time in ms since the epoch/);
      await expect(pipeline.run({ signal: {} } as never)).rejects.toThrow(/^signal must be an AbortSignal/);
      expect(pipeline.status().queued).toBe(0);
    } finally {
      pipeline.close();
    }
    // Nothing refused was saved: the state opens again with nothing queued.
    const again = new QuestionPipeline(opts);
    expect(again.status().queued).toBe(0);
    again.close();
  });
});

describe('every known client option is accepted', () => {
  const dir = tempDir('powprime-options-');
  const isUnknownOption = (err: unknown) => err instanceof TypeError && / is not an option of /.test(err.message);
  const keysOf = (o: object) => Object.keys(o).sort();
  const base: Required<Omit<ServiceClientOptions, 'limits'>> & { limits: 'off' } = {
    baseUrl: 'http://127.0.0.1:9',
    defaultBaseUrl: 'http://127.0.0.1:9',
    stateDir: dir,
    readOnlyState: false,
    probeBeforeWait: false,
    limits: 'off',
    banMs: 60_000,
    clock: new ManualClock(),
    timeoutMs: 1_000,
    maxWaitMs: 1_000,
    attempts: 1,
    backoffMs: 10,
    onWait: () => {},
    signal: new AbortController().signal,
  };

  it('the service options hold exactly the keys these calls give', () => {
    expect(keysOf(base)).toEqual([...SERVICE_CLIENT_OPTIONS].sort());
  });

  it('the clients and the keystore', async () => {
    const question = { ...base, homepageUrl: 'https://questions.example/', fileMaxAgeMs: 1_000, pow: { threads: 1, backend: 'js' } } as const;
    expect(keysOf(question)).toEqual([...SERVICE_CLIENT_OPTIONS, ...QUESTION_CLIENT_OPTIONS.own].sort());
    expect(keysOf(question.pow)).toEqual([...QUESTION_POW_OPTIONS].sort());
    const q = new QuestionClient(question);
    // Past the options check: the service is not there.
    for (const call of [() => q.query('a prompt', { signal: new AbortController().signal }), () => q.config({ signal: new AbortController().signal }), () => q.page(1, { perPage: 5 })]) {
      await expect(call()).rejects.toSatisfy((err) => !isUnknownOption(err));
    }
    const registry = { ...base, totpReading: 'server-clock', totpDigits: 8, totpOnGet: 'body', primeEncoding: 'hex', rekeyTotpIn: 'query' } as const;
    expect(keysOf(registry)).toEqual([...SERVICE_CLIENT_OPTIONS, ...REGISTRY_CLIENT_OPTIONS.own].sort());
    expect(new PrimeRegistryClient(registry).encodePrime(23n)).toBe('0x17');
    const ads = { ...base, indexMaxAgeMs: 1_000, imageMaxAgeMs: 1_000, random: () => 0.5 };
    expect(keysOf(ads)).toEqual([...SERVICE_CLIENT_OPTIONS, ...AD_CLIENT_OPTIONS.own].sort());
    expect(new AdClient(ads)).toBeInstanceOf(AdClient);
    expect(keysOf({ lockWaitMs: 100 })).toEqual([...KEYSTORE_OPTIONS]);
    expect(new Keystore(path.join(dir, 'keys.json'), { lockWaitMs: 100 }).all()).toEqual([]);
  });
});
