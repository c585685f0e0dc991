// The two roots of the combined sieve for many primes at once: for each r,
// t0 = the j with r | start + 12·j and t1 = the j with r | (start + 12·j − 1)/2,
// both in [0, r). Computing start mod r is what a sieve's depth costs (a
// residue of a multi-word number per prime per start point), so it runs on
// SIMD lanes: Horner's rule in double precision over 24-bit digits for
// r < 2^28 and 21-bit digits up to 2^32 (one step more in seven), with the
// quotient rounded to nearest so that no step needs a correction
// (sieve_roots.cc). AVX-512F runs eight primes an instruction, AVX2 four,
// SSE2 two.
#pragma once
#include <cstddef>
#include <cstdint>

#include "limbs.h"

namespace powprime::bignum {

// start ≡ 11 (mod 12) of `limbs` words; primes[0..n) odd, 5 ≤ r < 2^32, in any order.
void sieve_roots(const u64* start, int limbs, const uint32_t* primes, size_t n, uint32_t* t0, uint32_t* t1);

// Derived roots (stream v2 starts consecutive indexes 12·δ apart): given t0
// of a start, the roots of start + 12·δ are t0 − δ and t0 − δ + 12⁻¹ (mod r),
// one reduction of δ a prime instead of a multi-word residue. t0 is shifted
// in place (not when δ = 0) and t1 written. 0 ≤ δ < kMaxShift.
constexpr uint64_t kMaxShift = uint64_t(1) << 52;
void shift_roots(const uint32_t* primes, size_t n, uint64_t delta, uint32_t* t0, uint32_t* t1);

// δ = (start − base)/12 into *delta, when start ≥ base, the difference fits
// one word and 12 divides it; false otherwise. How a sieve or a far block
// tells whether a start's roots follow from ones it holds.
bool twelfths_above(const u64* start, const u64* base, int limbs, uint64_t* delta);

}  // namespace powprime::bignum
