// Base-2 Fermat tests of up to sixteen numbers at once on AVX2, one number per
// 64-bit lane, for CPUs without AVX-512 IFMA. vpmuludq multiplies the low 32
// bits of each lane, so the numbers are held as 27- or 28-bit digits whose
// whole product (under 2^56) fits a lane: no high half to carry, and the
// 64-bit accumulators take a full Montgomery product's sums before one
// normalising pass. On Zen 3 a test this way takes 0.5–0.85 of the time the
// MULX/ADX ladder takes one number, the less the smaller the number
// (docs/benchmarks.md).
#pragma once
#include "limbs.h"

namespace powprime::bignum {

constexpr int kAvx2Lanes = 16;
// The widest number a lane takes, as the IFMA lanes (fermat_vertical.h).
constexpr int kAvx2MaxBits = 8316;

// out[k] = (2^(n[k]−1) ≡ 1 mod n[k]) for k < count ≤ kAvx2Lanes; every n[k]
// odd, of `limbs` words and at most kAvx2MaxBits bits. Needs AVX2 (the
// "avx2" kernel admits it); compiled on x86-64 with GCC or Clang only.
void fermat2_vertical_avx2(const u64* const* n, int count, int limbs, bool* out);

}  // namespace powprime::bignum
