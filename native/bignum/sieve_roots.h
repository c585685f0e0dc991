// The two roots of the combined sieve for many primes at once: for each r,
// t0 = the j with r | start + 12·j and t1 = the j with r | (start + 12·j − 1)/2,
// both in [0, r). Computing start mod r is what a sieve's depth costs (a
// residue of a multi-word number per prime per start point), so it runs on
// SIMD lanes: Horner's rule over 24-bit digits in double precision, exact for
// r < 2^28, with the quotient rounded to nearest so that no step needs a
// correction (sieve_roots.cc). AVX-512F runs eight primes an instruction,
// AVX2 four, SSE2 two.
#pragma once
#include <cstddef>
#include <cstdint>

#include "limbs.h"

namespace powprime::bignum {

// Primes the double-precision residues are exact for (kSieveLimit stays at or below it).
constexpr uint32_t kRootsPrimesBelow = 1u << 28;

// start ≡ 11 (mod 12) of `limbs` words; primes[0..n) odd, 5 ≤ r < kRootsPrimesBelow.
void sieve_roots(const u64* start, int limbs, const uint32_t* primes, size_t n, uint32_t* t0, uint32_t* t1);

}  // namespace powprime::bignum
