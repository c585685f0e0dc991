// Base-2 Fermat tests of up to sixteen numbers at once on AVX-512 IFMA, one
// number per 64-bit lane ("vertical"): digit j of eight numbers sits in one
// register, so every vpmadd52 does useful work for eight candidates and no
// carry ever crosses lanes; sixteen run as two such registers side by side,
// whose independent chains keep the multipliers busier. The safe-prime
// sieve's survivors are tested this way; one number alone is better served
// by the horizontal kernel (mont_ifma.cc).
#pragma once
#include "limbs.h"

namespace powprime::bignum {

constexpr int kVerticalLanes = 16;
// Digits a lane holds at most; numbers of up to 52·digits − 4 bits fit
// (R = 2^(52·digits) ≥ 16n, see digits_for in the .cc).
constexpr int kVerticalMaxDigits = 160;
constexpr int kVerticalMaxBits = 52 * kVerticalMaxDigits - 4;

// out[k] = (2^(n[k]−1) ≡ 1 mod n[k]) for k < count ≤ kVerticalLanes; every
// n[k] odd, of `limbs` words and at most kVerticalMaxBits bits. Needs AVX-512
// IFMA (the "ifma" kernel admits it); compiled on x86-64 with GCC or Clang only.
void fermat2_vertical(const u64* const* n, int count, int limbs, bool* out);

}  // namespace powprime::bignum
