// The bignum bindings: primality and safe-primality verdicts and modular
// powers of bigints, on the bignum kernel in force.
#pragma once

#include <napi.h>

namespace powprime::napi {

// isProbablePrime(n: bigint, rounds?: number, trial = true): boolean — trial = false
// leaves the verdict to Baillie–PSW and the extra rounds alone (for tests).
Napi::Value IsProbablePrime(const Napi::CallbackInfo& info);

// isSafePrime(p: bigint, rounds?: number): boolean
Napi::Value IsSafePrime(const Napi::CallbackInfo& info);

// modPow(base: bigint, exponent: bigint, modulus: bigint): bigint — modulus odd, base < modulus.
Napi::Value ModPow(const Napi::CallbackInfo& info);

// pow2Mod(exponent: bigint, modulus: bigint): bigint — 2^exponent mod an odd modulus.
Napi::Value Pow2Mod(const Napi::CallbackInfo& info);

// fermatBase2(n: bigint[]): boolean[] — 2^(n−1) ≡ 1 (mod n) for each odd
// n ≥ 3, at most 64 of them; the way the sieve tests its survivors (eight at a
// time in SIMD lanes on the IFMA kernel), exposed so tests can reach it.
Napi::Value FermatBase2(const Napi::CallbackInfo& info);

}  // namespace powprime::napi
