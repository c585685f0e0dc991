/**
 * Every public limit of the API and the CLI, in one place. The API checks its
 * arguments against these (src/validate.ts); the CLI converts its flags to
 * numbers and lets the API's check speak, naming the flag (src/cli/args.ts).
 * Where the native core states the same bound in C++, test/native-tables.test.ts
 * reads the C++ source and holds the two equal.
 */

/** Pool threads per call. Far above the cores of any machine we run on; a slip such as 10000 is refused instead of starting that many threads. */
export const MIN_THREADS = 1;
export const MAX_THREADS = 256;

/** Proof-of-work difficulty: leading '0' characters of a SHA-256 hex digest, which has 64. Native twin: powSearch's check in native/napi/sha256.cc. */
export const MIN_DIFFICULTY = 0;
export const MAX_DIFFICULTY = 64;

/** A solution S is 1–32 ASCII digits: the question service's spec. */
export const MAX_SOLUTION_LENGTH = 32;

/** Miller–Rabin rounds after Baillie–PSW: 1000 is an error bound of 2^-2000 and beyond, so more is a mistake. Native twin: get_rounds in native/napi/args.cc. */
export const MIN_ROUNDS = 0;
export const MAX_ROUNDS = 1000;

/**
 * Sizes of a seeded safe-prime search. Below 16 bits there are too few safe
 * primes for a seeded search to mean anything; above 16384 bits one prime
 * takes hours on every core (see the README's timings).
 */
export const MIN_SEARCH_BITS = 16;
export const MAX_SEARCH_BITS = 16384;

/** DH parameters: below 512 bits DH is broken outright (OpenSSL refuses it too); the top is the search's. */
export const DH_MIN_BITS = 512;
export const DH_MAX_BITS = MAX_SEARCH_BITS;

/** isProbablePrime / isSafePrime take numbers up to 2^16 bits: the TS backend takes minutes beyond, and nobody checks such numbers by trial. */
export const MAX_CHECK_BITS = 65536;

/** The native core's widest operand in 64-bit limbs (kMaxLimbs in native/bignum/limbs.h); one limb is kept for carries. */
export const NATIVE_MAX_LIMBS = 512;
/** Wider numbers go to the TS backend. */
export const NATIVE_MAX_BITS = 64 * (NATIVE_MAX_LIMBS - 1);

/** Seeds are 256-bit: the start point hashes the seed as 32 bytes. */
export const SEED_LIMIT = 1n << 256n;
/** Indexes (and strides) are 64-bit: the start point hashes the index as 8 bytes. */
export const INDEX_LIMIT = 1n << 64n;

/** --chunk-length: candidates per queue chunk; 2^40 is days of one core, beyond any useful chunk. */
export const MAX_CHUNK_LENGTH = 2 ** 40;
/** worker --concurrency: chunks at once share the pool, so more than the thread limit cannot all run. */
export const MAX_WORKER_CONCURRENCY = MAX_THREADS;
/** worker --lock-ms: under a second the lock renewals would flood Redis; an hour is the longest a dead worker's chunk should wait. */
export const MIN_LOCK_MS = 1000;
export const MAX_LOCK_MS = 3_600_000;
/** --max-wait: a year is the longest wait a rate limit could ask for that is not a mistake. */
export const MAX_WAIT_SECONDS = 365 * 86_400;
/** question --first-check and --max-interval: a question is followed for at most a week. */
export const MAX_CHECK_INTERVAL_SECONDS = 7 * 86_400;
/** registry requirements [bits]: any size the registry might describe, up to 2^20 bits. */
export const MAX_REGISTRY_BITS = 1 << 20;
/** --shard i/n: a million shards is beyond any scheduler's array size. */
export const MAX_SHARDS = 1_000_000;
/** fake-services --port: a TCP port, 0 for any free one. */
export const MAX_PORT = 65535;
