// Conversions between 64-bit limbs and the r-bit digits the vector kernels
// compute in: 52 bits for AVX-512 IFMA (mont_ifma.cc, fermat_vertical.cc),
// whose vpmadd52 multiplies 52-bit halves, and 27 or 28 for the AVX2 lanes
// (fermat_vertical_avx2.cc), whose vpmuludq products must fit a 64-bit lane.
#pragma once
#include <cstring>

#include "limbs.h"

namespace powprime::bignum {

constexpr u64 digit_mask(int r) { return (u64(1) << r) - 1; }

// The IFMA kernels' digits.
constexpr int kIfmaDigitBits = 52;
constexpr u64 kDigitMask = digit_mask(kIfmaDigitBits);

// d[0..digits) = w's bits, kR at a time from the bottom (zero past the top limb).
template <int kR>
inline void to_digits(u64* d, int digits, const u64* w, int limbs) {
  static_assert(kR > 0 && kR <= 64 - 1, "a digit and the spill of the next limb fit a 64-bit word");
  for (int k = 0; k < digits; k++) {
    const int bit = kR * k, word = bit / 64, shift = bit % 64;
    u64 v = word < limbs ? w[word] >> shift : 0;
    // The digit crosses into the next limb.
    if (shift > 64 - kR && word + 1 < limbs) v |= w[word + 1] << (64 - shift);
    d[k] = v & digit_mask(kR);
  }
}

// w[0..limbs) = the digits' value (each below 2^kR), cut to the limbs.
template <int kR>
inline void from_digits(u64* w, int limbs, const u64* d, int digits) {
  std::memset(w, 0, sizeof(u64) * size_t(limbs));
  for (int k = 0; k < digits; k++) {
    const int bit = kR * k, word = bit / 64, shift = bit % 64;
    if (word < limbs) w[word] |= d[k] << shift;
    if (shift > 64 - kR && word + 1 < limbs) w[word + 1] |= d[k] >> (64 - shift);
  }
}

}  // namespace powprime::bignum
