/**
 * The shape of the native addon as TypeScript sees it: every function and
 * object native/napi/ exports, typed once. native.ts loads it; nothing else
 * here runs.
 */
/** How a chain of native sieves' starts follow each other (see SafePrimeSieve). */
export interface DeepPlan {
  spacing: number;
  slots: number;
  /** The run's index positions from this one to its last, this one included (absent: no end known): a far block keeps its roots for the next ones only when the run goes past twice its slots. */
  ahead?: number;
}

interface NativeBackendInfo {
  /** The kernel the PoW search uses, with its lane count: "avx512 x48", "sha-ni x2", "avx2 x8", "scalar". */
  sha256: string;
  /** The kernel used to hash whole messages. */
  hasher: string;
  /** Ids of the proof-of-work group searchers usable on this CPU, fastest first by the timing at load. */
  kernels: string[];
  /** Hashes per second of each usable searcher in that timing (one thread, a few ms). */
  searcherRates: Record<string, number>;
  /** Ids of the message hashers usable on this CPU, best first (AVX2 has none). */
  hashers: string[];
  /** Kernels compiled in but not usable here, with the reason. */
  refused: string[];
  cpu: { shaNi: boolean; avx2: boolean; bmi2: boolean; adx: boolean; avx512f: boolean; avx512ifma: boolean; armSha2: boolean };
  /** Name of the bignum kernel in force: "avx512-ifma x8 + mulx/adx", "avx2 x4 + mulx/adx", "mulx/adx" or "portable". */
  bignum: string;
  /** Ids of the bignum kernels usable on this CPU (admitted by its features, then a self-test at load), best first; "portable" always last. */
  bignumKernels: string[];
  /** Bignum kernels compiled in but refused here, as "id: reason". */
  bignumRefused: string[];
}

export interface NativeSieve {
  /** `stop`: a one-element shared flag; once non-zero the search gives up between tests and says `stopped`. Throws once closed. */
  search(j0: number, j1: number, stop?: BigUint64Array): { found: number | null; sieved: number; tested: number; stopped?: true };
  /**
   * Frees the sieve's tables (8 bytes per sieve prime: megabytes at 2048 bits)
   * now; idempotent. Call it when the sieve's work ends: collection of the
   * small wrapper is only a safety net.
   */
  close(): void;
  /** Whether the deep roots were derived from a `previous` sieve rather than computed. */
  readonly derived: boolean;
}

/** Live native objects of the addon and the bytes they hold, over every thread of the process. */
interface NativeMemory {
  objects: number;
  bytes: number;
}

/** Tables the TS backend mirrors (see test/native-tables.test.ts). */
interface NativeTables {
  bpswExactBits: number;
  /** [minBits, rounds] rows: the first with minBits <= bits applies. */
  defaultRounds: [number, number][];
  /** [above, width] rows: the first with bits > above applies. */
  windowBits: [number, number][];
  trialPrimes: Uint32Array;
  trialPrimesBelow: number;
  sieveLimit: number;
  powFastWordsFour: Uint32Array;
  powFastWordsThree: Uint32Array;
}

/**
 * The addon's test-only functions, exported apart in one object: views
 * into its tables and state, and the choice of bignum kernel. For tests only:
 * nothing in src/ reaches them (test/structure.test.ts), so none is part of
 * what the library relies on.
 */
export interface NativeIntrospect {
  tables(): NativeTables;
  /** Puts the usable bignum kernel with this id (see backendInfo().bignumKernels) in force, or the best one when omitted; returns its name. */
  setBignumKernel(kernel?: string): string;
  /** The combined sieve's roots of `start` for each prime (< 2^32); with `delta`, derived from start − 12·delta's. */
  sieveRoots(start: bigint, primes: Uint32Array, delta?: number): { t0: Uint32Array; t1: Uint32Array };
  /** The deep sieve's prime table a sieve to `limit` reads. */
  deepPrimes(limit: number, lo?: number, hi?: number): Uint32Array;
  /** What native objects are alive now (each is also reported to its thread's JS engine as external memory). */
  nativeMemory(): NativeMemory;
}

export interface NativeBinding {
  /** The package version the addon was built for (checked by the loader). */
  version: string;
  isProbablePrime(n: bigint, rounds?: number, trial?: boolean): boolean;
  isSafePrime(p: bigint, rounds?: number): boolean;
  modPow(base: bigint, exponent: bigint, modulus: bigint): bigint;
  pow2Mod(exponent: bigint, modulus: bigint): bigint;
  fermatBase2(n: bigint[]): boolean[];
  /**
   * `previous` is consumed (closed); its deep roots are shifted instead of recomputed when its start is 12·δ below.
   * `plan`: starts follow each other 12·spacing apart, and about `slots` of them will be searched from this one
   * (native/bignum/far_sieve.h): the deep primes from `spacing` up are then struck for that many starts at once,
   * their roots kept for the next blocks when `ahead` goes past twice a block's slots (no end: from a chain's second block).
   */
  SafePrimeSieve: new (
    start: bigint,
    sieveLimit: number,
    rounds?: number,
    /** KEEP_CODE of src/prime/sieve.ts. */
    keep?: 0 | 1 | 2,
    previous?: NativeSieve,
    plan?: DeepPlan,
  ) => NativeSieve;
  backendInfo(): NativeBackendInfo;
  /** Ends the process at once with `code`, without waiting for pool threads (see src/cli/interrupt.ts). */
  exitNow(code: number): never;
  /** From now on a stop signal ends the process from the signal handler (false where signals are not POSIX). */
  exitOnStopSignals(): boolean;
  /** Until releaseStopSignals(), a stop signal is only noted, for a synchronous wait that polls for it (false where signals are not POSIX). */
  holdStopSignals(): boolean;
  /** The stop signal noted since holdStopSignals(), if any. */
  heldStopSignal(): string | null;
  /** Puts the handlers holdStopSignals() replaced back; returns the signal noted meanwhile (not delivered again). */
  releaseStopSignals(): string | null;
  /** Whether fd is a pipe or socket whose reader has closed it (false for anything else, and on Windows). */
  readerGone(fd: number): boolean;
  sha256(data: Uint8Array, kernel?: string): Uint8Array;
  powSearch(mid: Uint32Array, block: Uint8Array, digitsEnd: number, digitsCount: number, difficulty: number, kStart: bigint, kEnd: bigint, kernel?: string): bigint | null;
  /** Tests only (see NativeIntrospect); src/ never touches it. */
  introspect: NativeIntrospect;
}
