// Conversions between 64-bit limbs and the 52-bit digits the AVX-512 IFMA
// kernels (mont_ifma.cc, fermat_vertical.cc) compute in.
#pragma once
#include "limbs.h"

namespace powprime::bignum {

constexpr u64 kDigitMask = (u64(1) << 52) - 1;

inline void to_digits(u64* d, int digits, const u64* w, int limbs) {
  for (int k = 0; k < digits; k++) {
    const int bit = 52 * k, word = bit / 64, shift = bit % 64;
    u64 v = word < limbs ? w[word] >> shift : 0;
    if (shift > 12 && word + 1 < limbs) v |= w[word + 1] << (64 - shift);
    d[k] = v & kDigitMask;
  }
}

inline void from_digits(u64* w, int limbs, const u64* d, int digits) {
  std::memset(w, 0, sizeof(u64) * size_t(limbs));
  for (int k = 0; k < digits; k++) {
    const int bit = 52 * k, word = bit / 64, shift = bit % 64;
    if (word < limbs) w[word] |= d[k] << shift;
    if (shift > 12 && word + 1 < limbs) w[word + 1] |= d[k] >> (64 - shift);
  }
}

}  // namespace powprime::bignum
