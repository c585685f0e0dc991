#include "fermat_vertical.h"

#include "mont_ifma.h"
#include "radix52.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>

#define POWPRIME_IFMA __attribute__((target("avx512f,avx512ifma")))

namespace powprime::bignum {
namespace {

using V = __m512i;

// The stack arrays' size: numbers up to 8316 bits. There is no lower
// bound: eight lanes beat one 64-bit Montgomery ladder at every width
// measured (64 bits: 0.5 against 5.5 µs a test; 2048: 0.27 against 1.47 ms).
constexpr int kMaxDigits = 160;

// Digits L with R = 2^(52·L) ≥ 16n: a product of two values below 4n then
// comes back below 2n, so a doubled value needs no reduction before the
// next squaring.
int digits_for(int bits) { return (bits + 4 + 51) / 52; }

// R mod n (the Montgomery form of 1) for one lane, as `digits` digits: from
// 2^(b−1) < n, doubled with a conditional subtraction up to 2^(52·digits).
void montgomery_one(u64* out, const u64* n, int limbs, int digits) {
  u64 x[kMaxLimbs + 1] = {};
  const int b = bit_length(n, limbs);
  x[(b - 1) / 64] = u64(1) << ((b - 1) % 64);
  for (int i = b - 1; i < 52 * digits; i++) {
    const u64 top = x[limbs - 1] >> 63;
    for (int w = limbs - 1; w > 0; w--) x[w] = (x[w] << 1) | (x[w - 1] >> 63);
    x[0] <<= 1;
    if (top || cmp(x, n, limbs) >= 0) sub(x, x, n, limbs);
  }
  to_digits(out, digits, x, limbs);
}

// out = a·b·R^−1 (mod n), eight lanes at once, for a, b below 4n with
// digits under 2^52; out is below 2n, its digits normalised the same way.
// Coarsely integrated operand scanning: each step adds a_i·b and m·n and
// drops one digit. The 64-bit accumulators take the unnormalised sums (at
// most 4 terms under 2^52 per step and digit, so under 2^61 after 158 steps)
// and are normalised once at the end.
POWPRIME_IFMA void amm8(V* out, const V* a, const V* b, const V* n, V k0, int L) {
  alignas(64) V t[kMaxDigits + 1];
  const V zero = _mm512_setzero_si512();
  for (int j = 0; j <= L; j++) t[j] = zero;
  for (int i = 0; i < L; i++) {
    const V ai = a[i];
    V t0 = _mm512_madd52lo_epu64(t[0], ai, b[0]);
    // madd52lo reads the low 52 bits of t0: m = (t0 · k0) mod 2^52.
    const V m = _mm512_madd52lo_epu64(zero, t0, k0);
    t0 = _mm512_madd52lo_epu64(t0, m, n[0]);
    V x = _mm512_add_epi64(t[1], _mm512_srli_epi64(t0, 52));
    x = _mm512_madd52hi_epu64(x, ai, b[0]);
    x = _mm512_madd52hi_epu64(x, m, n[0]);
    for (int j = 1; j < L; j++) {
      x = _mm512_madd52lo_epu64(x, ai, b[j]);
      x = _mm512_madd52lo_epu64(x, m, n[j]);
      t[j - 1] = x;
      x = _mm512_madd52hi_epu64(t[j + 1], ai, b[j]);
      x = _mm512_madd52hi_epu64(x, m, n[j]);
    }
    t[L - 1] = x;
  }
  const V mask = _mm512_set1_epi64((long long)kDigitMask);
  V c = zero;
  for (int j = 0; j < L; j++) {
    const V v = _mm512_add_epi64(t[j], c);
    out[j] = _mm512_and_si512(v, mask);
    c = _mm512_srli_epi64(v, 52);
  }
}

// x = 2x in the lanes of `lanes`: each digit shifts by one and takes the top
// bit of the digit below; values stay below 2^(52·L).
POWPRIME_IFMA void double8(V* x, __mmask8 lanes, int L) {
  const V mask = _mm512_set1_epi64((long long)kDigitMask);
  V below = _mm512_setzero_si512();
  for (int j = 0; j < L; j++) {
    const V v = x[j];
    const V d = _mm512_or_si512(_mm512_and_si512(_mm512_slli_epi64(v, 1), mask), _mm512_srli_epi64(below, 51));
    x[j] = _mm512_mask_mov_epi64(v, lanes, d);
    below = v;
  }
}

// Digit j of every lane into register j.
POWPRIME_IFMA void gather(V* dst, const u64 (*col)[kMaxDigits], int L) {
  for (int j = 0; j < L; j++) {
    alignas(64) u64 row[kVerticalLanes];
    for (int k = 0; k < kVerticalLanes; k++) row[k] = col[k][j];
    dst[j] = _mm512_load_si512(row);
  }
}

POWPRIME_IFMA void run(const u64* const* n, int count, int limbs, bool* out) {
  int top = 0;
  for (int k = 0; k < count; k++) top = std::max(top, bit_length(n[k], limbs));
  const int L = digits_for(top);
  // Lanes past count repeat lane 0; their answers are dropped.
  const u64* lane[kVerticalLanes];
  for (int k = 0; k < kVerticalLanes; k++) lane[k] = n[k < count ? k : 0];

  alignas(64) V N[kMaxDigits], acc[kMaxDigits];
  alignas(64) u64 col[kVerticalLanes][kMaxDigits];
  alignas(64) u64 k0s[kVerticalLanes];
  for (int k = 0; k < kVerticalLanes; k++) {
    to_digits(col[k], L, lane[k], limbs);
    k0s[k] = neg_inverse_mod_2_64(lane[k][0]) & kDigitMask;
  }
  gather(N, col, L);
  const V k0 = _mm512_load_si512(k0s);
  for (int k = 0; k < kVerticalLanes; k++) montgomery_one(col[k], lane[k], limbs, L);
  gather(acc, col, L);

  // 2^(n−1), left to right: square, then double in the lanes whose exponent
  // bit is set. Bit 0 of n − 1 is 0 (n is odd); above bit 0 it is n's bit.
  for (int i = top - 1; i >= 0; i--) {
    amm8(acc, acc, acc, N, k0, L);
    if (i == 0) break;
    __mmask8 lanes = 0;
    for (int k = 0; k < kVerticalLanes; k++) lanes |= __mmask8(bit(lane[k], i) << k);
    if (lanes) double8(acc, lanes, L);
  }
  // Out of the Montgomery domain: a·1·R^−1 is below n + 1 and never n (2 is
  // invertible mod n), so it is the exact residue; compare it with 1.
  alignas(64) V one[kMaxDigits];
  for (int j = 0; j < L; j++) one[j] = _mm512_setzero_si512();
  one[0] = _mm512_set1_epi64(1);
  amm8(acc, acc, one, N, k0, L);
  V diff = _mm512_xor_si512(acc[0], one[0]);
  for (int j = 1; j < L; j++) diff = _mm512_or_si512(diff, acc[j]);
  const __mmask8 is_one = _mm512_testn_epi64_mask(diff, diff);
  for (int k = 0; k < count; k++) out[k] = (is_one >> k) & 1;
}

}  // namespace

bool fermat2_vertical_takes(int bits) {
  return ifma_usable() && digits_for(bits) <= kMaxDigits;
}

void fermat2_vertical(const u64* const* n, int count, int limbs, bool* out) { run(n, count, limbs, out); }

}  // namespace powprime::bignum

#else
namespace powprime::bignum {
bool fermat2_vertical_takes(int) { return false; }
void fermat2_vertical(const u64* const*, int, int, bool*) {}
}  // namespace powprime::bignum
#endif
