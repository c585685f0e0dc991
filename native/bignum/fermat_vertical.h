// Base-2 Fermat tests of eight numbers at once on AVX-512 IFMA, one number
// per 64-bit lane ("vertical"): digit j of all eight sits in one register,
// so every vpmadd52 does useful work for eight candidates and no carry ever
// crosses lanes. The safe-prime sieve's survivors are tested this way; one
// number alone is better served by the horizontal kernel (mont_ifma.h).
#pragma once
#include "limbs.h"

namespace powprime::bignum {

constexpr int kVerticalLanes = 8;

// The kernel runs here (AVX-512 IFMA) and takes odd numbers of this many bits
// (up to 8316).
bool fermat2_vertical_takes(int bits);

// out[k] = (2^(n[k]−1) ≡ 1 mod n[k]) for k < count ≤ kVerticalLanes; every
// n[k] odd, of `limbs` words, with fermat2_vertical_takes(its bit length).
void fermat2_vertical(const u64* const* n, int count, int limbs, bool* out);

}  // namespace powprime::bignum
