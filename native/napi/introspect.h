// The test-only bindings, exported together as `introspect`: views into the
// kernels' tables and state, and the choice of bignum kernel, which tests hold
// against independent computations. Nothing in src/ reaches them.
#pragma once

#include <napi.h>

namespace powprime::napi {

// tables(): the tables the TS backend mirrors, as plain arrays and numbers,
// so a test can hold each twin equal to its native original.
Napi::Value Tables(const Napi::CallbackInfo& info);

// setBignumKernel(id?: string): puts the usable bignum kernel with this id
// (one of backendInfo().bignumKernels) in force for this process, or the
// best one when id is undefined; tests use it to cover every
// kernel. Returns the name of the kernel now in force.
Napi::Value SetBignumKernel(const Napi::CallbackInfo& info);

// deepPrimes(limit: number, lo?: number, hi?: number): Uint32Array — the
// primes in [lo, hi) (default: all of them) of the deep sieve's prime table
// that a sieve to `limit` reads (every prime from kDenseSieveLimit below the
// table's own limit, the next of 2^22, 2^25, 2^28, 2^30, 2^31, 2^32 at or above
// `limit`), built on first use as a search would. For tests, which count
// them and hold them against an independent sieve; a range checks the
// table's counts and its reader's edges, which the sieves rely on.
Napi::Value DeepPrimes(const Napi::CallbackInfo& info);

// sieveRoots(start: bigint, primes: Uint32Array, delta?: number): {t0, t1} —
// the combined sieve's roots of start ≡ 11 (mod 12) for each prime (5 ≤ r <
// 2^32): r | start + 12·t0 and r | (start + 12·t1 − 1)/2. With delta, the
// roots of start − 12·delta shifted by delta (the derived path), which must
// come out the same. For tests, which hold both against BigInt residues.
Napi::Value SieveRoots(const Napi::CallbackInfo& info);

// nativeMemory(): {objects: number, bytes: number} — live native objects and
// the bytes they hold, process-wide (memory.h), so a test sees each freed.
Napi::Value NativeMemory(const Napi::CallbackInfo& info);

}  // namespace powprime::napi
