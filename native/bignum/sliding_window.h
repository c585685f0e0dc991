// The left-to-right sliding-window walk over an exponent, shared by the
// 64-bit and the IFMA exponentiations (and mirrored by src/prime/bigint.ts).
#pragma once
#include "limbs.h"

namespace powprime::bignum {

// Window width for an exponent of `bits` bits.
inline int window_bits(int bits) { return bits > 1536 ? 6 : bits > 512 ? 5 : bits > 128 ? 4 : bits > 32 ? 3 : 1; }

// Calls start(k) once for the leading window (acc := odd power number k,
// i.e. base^(2k+1)), then square() and multiply(k) as the walk requires.
// e must be non-zero.
template <class Start, class Square, class Multiply>
void sliding_window(const u64* e, int bits, int w, Start start, Square square, Multiply multiply) {
  bool started = false;
  int i = bits - 1;
  while (i >= 0) {
    if (!bit(e, i)) {
      if (started) square();
      i--;
      continue;
    }
    int j = i - w + 1 < 0 ? 0 : i - w + 1;
    while (!bit(e, j)) j++;
    unsigned val = 0;
    for (int k = i; k >= j; k--) val = (val << 1) | unsigned(bit(e, k));
    if (started) {
      for (int k = i; k >= j; k--) square();
      multiply(val >> 1);
    } else {
      start(val >> 1);
      started = true;
    }
    i = j - 1;
  }
}

}  // namespace powprime::bignum
