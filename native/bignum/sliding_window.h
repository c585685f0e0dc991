// The left-to-right sliding-window walk over an exponent, shared by the
// 64-bit and the IFMA exponentiations (and mirrored by src/prime/bigint.ts).
#pragma once
#include "limbs.h"

namespace powprime::bignum {

// Window width for an exponent of `bits` bits: the first row with
// bits > above. A width-w walk costs 2^(w−1) − 1 products for its table of odd
// powers plus about bits/(w + 1) window products; that cost model is lowest
// from 24/80/240/672 bits on (OpenSSL's BN_window_bits_for_exponent_size).
// These rows sit about twice higher; how they were chosen was not recorded,
// so re-time the exponentiations (`powprime bench --suite prime`) before
// changing a row. Any width gives the same result. Mirrored by windowBits in src/prime/tuning.ts; the addon
// exports it so a test holds the two equal.
struct WindowRow {
  int above;
  int width;
};
inline constexpr WindowRow kWindowRows[] = {{1536, 6}, {512, 5}, {128, 4}, {32, 3}, {0, 1}};
inline int window_bits(int bits) {
  for (const WindowRow& row : kWindowRows)
    if (bits > row.above) return row.width;
  return 1;
}

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
