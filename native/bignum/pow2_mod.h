// 2^e mod n on plain words, by doubling: the Montgomery form of 1
// (R mod n, R = 2^e) that the vertical Fermat kernels start every lane from.
// Once per lane per batch, so a loop of e − b + 1 shifts is cheap enough.
#pragma once
#include <algorithm>

#include "limbs.h"

namespace powprime::bignum {

// The widest n the vertical kernels take, in words (8316 bits), plus one.
constexpr int kMaxPow2ModWords = (8316 + 63) / 64 + 1;

// x = 2^e mod n, as `limbs` words; n odd, of `limbs` ≤ kMaxPow2ModWords − 1
// words, e ≥ bit_length(n) − 1; x must hold limbs + 1 words.
inline void pow2_mod_by_doubling(u64* x, const u64* n, int limbs, int e) {
  std::fill(x, x + limbs + 1, 0);
  const int b = bit_length(n, limbs);
  x[(b - 1) / 64] = u64(1) << ((b - 1) % 64);
  for (int i = b - 1; i < e; i++) {
    const u64 top = x[limbs - 1] >> 63;
    for (int w = limbs - 1; w > 0; w--) x[w] = (x[w] << 1) | (x[w - 1] >> 63);
    x[0] <<= 1;
    if (top || cmp(x, n, limbs) >= 0) sub(x, x, n, limbs);
  }
}

}  // namespace powprime::bignum
