// Tables of small odd primes, built once per process.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "huge_pages.h"
#include "wide_arith.h"

namespace powprime::bignum {

// Odd primes below kTrialPrimesBelow, for trial division in is_probable_prime.
// Mirrored by TRIAL_PRIMES in src/prime/small-primes.ts.
constexpr uint32_t kTrialPrimesBelow = 1000;
const std::vector<uint32_t>& trial_primes();
// The safe-prime sieve's primes come in two tiers (safe_prime_sieve.h says why).
// Dense: from 5 up to kDenseSieveLimit, struck in every slice.
constexpr uint32_t kDenseSieveLimit = 1u << 16;
const std::vector<uint32_t>& sieve_primes();
// Deep: from kDenseSieveLimit up to the sieve's limit, at most kSieveLimit,
// struck in a window at the start only, from a table (prime_table.h).
// kSieveLimit is the deepest sieve sieveLimit() in src/prime/sieve-depth.ts
// asks for (SIEVE_LIMIT_MAX there). Every deep prime is below it, so a prime
// and its roots fit 32 bits (sieve_roots is exact below 2^32); the limit
// itself, and limits generally, are 64-bit.
constexpr uint64_t kSieveLimit = uint64_t(1) << 32;
// The big arrays of the deep tier: a root per deep prime (huge_pages.h).
using DeepArray = std::vector<uint32_t, HugePageAllocator<uint32_t>>;
// floor(2^64 / r) for each entry of sieve_primes(), for mod_by_reciprocal.
const std::vector<uint64_t>& sieve_reciprocals();

// x mod r from m = floor(2^64 / r), without a division: the sieve takes a
// residue per sieve prime per slice, and a hardware divide there cost more
// than the rest of the sieve. The quotient estimate floor(x·m / 2^64) is at
// most one below floor(x / r) (x < 2^64), so one subtraction corrects it.
inline uint32_t mod_by_reciprocal(uint64_t x, uint32_t r, uint64_t m) {
  const uint64_t q = mul_high(x, m);
  const uint64_t rem = x - q * r;
  return uint32_t(rem >= r ? rem - r : rem);
}

}  // namespace powprime::bignum
