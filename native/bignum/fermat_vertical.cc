#include "fermat_vertical.h"

#include "digits.h"
#include "lane_group.h"
#include "pow2_mod.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>

#define POWPRIME_IFMA __attribute__((target("avx512f,avx512ifma")))
// As in the AVX2 lanes (fermat_vertical_avx2.cc, which says what GCC's
// sanitizer build did to a group passed by value to a function left out of
// line): the functions that take or return a group by value are always
// inlined, and the others take references.
#define POWPRIME_IFMA_OP __attribute__((target("avx512f,avx512ifma"), always_inline))

namespace powprime::bignum {
namespace {

using V = __m512i;
struct Zmm {
  using V = __m512i;
};

// A group of lanes the kernels below run as one: G1 is one register (eight
// lanes), G2 two independent ones (sixteen). Every product column is a chain
// of four dependent vpmadd52 (16 cycles on Zen 5); with one register the
// out-of-order core kept the IFMA units about three quarters busy, and a
// second chain beside each one fills some of the rest: a 2048-bit squaring
// took 0.80–0.90 of the time a lane in a loop of its own, and a 2048-bit
// search 2–5 % less core time a prime (Zen 5, bench/safe-prime-profile.ts).
using G1 = LaneGroup<Zmm, 1>;
using G2 = LaneGroup<Zmm, 2>;
constexpr int kRegLanes = G1::kRegLanes;
static_assert(G2::kRegs * kRegLanes == kVerticalLanes, "the widest group holds every lane of a batch");

// The operations the kernels use, register by register.
#define POWPRIME_GROUP_OP(name, expr)                   \
  template <class G>                                    \
  POWPRIME_IFMA_OP inline G name(G a, G b, G c) {       \
    G o;                                                \
    for (int i = 0; i < G::kRegs; i++) o.r[i] = (expr); \
    return o;                                           \
  }
POWPRIME_GROUP_OP(lo, _mm512_madd52lo_epu64(a.r[i], b.r[i], c.r[i]))  // a + low 52 bits of b·c
POWPRIME_GROUP_OP(hi, _mm512_madd52hi_epu64(a.r[i], b.r[i], c.r[i]))  // a + high 52 bits of b·c
#undef POWPRIME_GROUP_OP

template <class G>
POWPRIME_IFMA_OP inline G zero() {
  G o;
  for (int i = 0; i < G::kRegs; i++) o.r[i] = _mm512_setzero_si512();
  return o;
}
template <class G>
POWPRIME_IFMA_OP inline G add(G a, G b) {
  for (int i = 0; i < G::kRegs; i++) a.r[i] = _mm512_add_epi64(a.r[i], b.r[i]);
  return a;
}
template <class G>
POWPRIME_IFMA_OP inline G carry(G a) {  // what a digit carries: its bits from 52 up
  for (int i = 0; i < G::kRegs; i++) a.r[i] = _mm512_srli_epi64(a.r[i], 52);
  return a;
}
template <class G>
POWPRIME_IFMA_OP inline G twice(G a) {
  for (int i = 0; i < G::kRegs; i++) a.r[i] = _mm512_slli_epi64(a.r[i], 1);
  return a;
}
template <class G>
POWPRIME_IFMA_OP inline G low_digit(G a) {
  const V mask = _mm512_set1_epi64((long long)kDigitMask);
  for (int i = 0; i < G::kRegs; i++) a.r[i] = _mm512_and_si512(a.r[i], mask);
  return a;
}

// The stack arrays' size: numbers up to 8316 bits. There is no lower
// bound: eight lanes beat one 64-bit Montgomery ladder at every width
// measured (64 bits: 0.5 against 5.5 µs a test; 2048: 0.27 against 1.47 ms).
constexpr int kMaxDigits = kVerticalMaxDigits;
// From this many digits (about 1280 bits) sqr squares faster than amm;
// below, its extra passes over the columns cost more than the products it
// saves (measured per test: 1024 bits 0.040 against 0.035 ms, 2048 bits
// 0.20 against 0.27).
constexpr int kSqrMinDigits = 25;

// Digits L with R = 2^(52·L) ≥ 16n: a product of two values below 4n then
// comes back below 2n, so a doubled value needs no reduction before the
// next squaring.
int digits_for(int bits) { return (bits + 4 + 51) / 52; }
static_assert((kVerticalMaxBits + 4 + 51) / 52 == kMaxDigits && (kVerticalMaxBits + 5 + 51) / 52 > kMaxDigits,
              "kVerticalMaxBits is the widest number digits_for fits in kMaxDigits");

// R mod n (the Montgomery form of 1) for one lane, as `digits` digits.
// limbs ≤ kMaxWords (run trims the batch's width to its widest number).
constexpr int kMaxWords = (kVerticalMaxBits + 63) / 64;
static_assert(kMaxWords < kMaxPow2ModWords, "pow2_mod_by_doubling takes the widest lane");
void montgomery_one(u64* out, const u64* n, int limbs, int digits) {
  u64 x[kMaxPow2ModWords];
  pow2_mod_by_doubling(x, n, limbs, 52 * digits);
  to_digits<kIfmaDigitBits>(out, digits, x, limbs);
}

// out = t, doubled in the lanes set in `twice_lanes` (register i's eight
// lanes in byte i), with its carries propagated: L digits under 2^52 each.
// The value t holds is below 2n and R ≥ 16n, so even doubled it is below
// 2^(52·L) and nothing carries out of the top; a digit of t is under 2^62
// (amm; a column of sqr sums at most 4L + 1 products under 2^52, the cross
// ones doubled, and carries), so doubled it still fits its 64 bits. Doubling here, one masked add
// a digit beside the carry chain, replaced a pass of its own over the digits
// after each squaring (shift, take the bit below, blend): 4 % of a test.
template <class G>
POWPRIME_IFMA void normalize(G* out, const G* t, int L, unsigned twice_lanes) {
  G c = zero<G>();
  for (int j = 0; j < L; j++) {
    G v = t[j];
    for (int i = 0; i < G::kRegs; i++) {
      const __mmask8 in = __mmask8(twice_lanes >> (kRegLanes * i));
      v.r[i] = _mm512_mask_add_epi64(v.r[i], in, v.r[i], v.r[i]);
    }
    v = add(v, c);
    out[j] = low_digit(v);
    c = carry(v);
  }
}

// out = a·b·R^−1 (mod n) in every lane at once, for a, b below 4n with
// digits under 2^52; out is below 2n, its digits normalised the same way,
// then doubled in the lanes set in `twice_lanes` (normalize).
// Coarsely integrated operand scanning: each step adds a_i·b and m·n and
// drops one digit. The 64-bit accumulators take the unnormalised sums and
// are normalised once at the end: a step adds at most 4 terms under 2^52 to
// a digit (lo and hi halves of a_i·b and m·n) plus the carry out of digit 0
// (under 2^11), and there are at most kMaxDigits = 160 steps, so a sum stays
// under 160·(4·2^52 + 2^11) < 640·2^52 < 2^62.
template <class G>
POWPRIME_IFMA void amm(G* out, const G* a, const G* b, const G* n, const G& k0, int L, unsigned twice_lanes) {
  alignas(64) G t[kMaxDigits + 1];
  const G z = zero<G>();
  for (int j = 0; j <= L; j++) t[j] = z;
  for (int i = 0; i < L; i++) {
    const G ai = a[i];
    G t0 = lo(t[0], ai, b[0]);
    // madd52lo reads the low 52 bits of t0: m = (t0 · k0) mod 2^52.
    const G m = lo(z, t0, k0);
    t0 = lo(t0, m, n[0]);
    G x = add(t[1], carry(t0));
    x = hi(x, ai, b[0]);
    x = hi(x, m, n[0]);
    for (int j = 1; j < L; j++) {
      x = lo(x, ai, b[j]);
      x = lo(x, m, n[j]);
      t[j - 1] = x;
      x = hi(t[j + 1], ai, b[j]);
      x = hi(x, m, n[j]);
    }
    t[L - 1] = x;
  }
  normalize(out, t, L, twice_lanes);
}

// Column k of the cross products of rows i and i+1 (x0 = a_i, x1 = a_{i+1}):
// lo(a_i·a_j) lands in column i+j and hi in i+j+1, for i < j < L.
template <class G>
POWPRIME_IFMA_OP inline G cross_column(G c, const G* a, G x0, G x1, int i, int k, int L) {
  if (k - i <= L - 1) c = lo(c, x0, a[k - i]);
  if (k - i - 1 >= i + 1 && k - i - 1 <= L - 1) c = hi(c, x0, a[k - i - 1]);
  if (k - i - 1 >= i + 2 && k - i - 1 <= L - 1) c = lo(c, x1, a[k - i - 1]);
  if (k - i - 2 >= i + 2 && k - i - 2 <= L - 1) c = hi(c, x1, a[k - i - 2]);
  return c;
}

// Column k of rows r and r+1 of the reduction (factors m0, m1): lo(m·n_j)
// lands in column r+j, hi in r+j+1, for 0 ≤ j < L.
template <class G>
POWPRIME_IFMA_OP inline G reduce_column(G c, const G* n, G m0, G m1, int r, int k, int L) {
  if (k - r <= L - 1) c = lo(c, m0, n[k - r]);
  if (k - r - 1 >= 0 && k - r - 1 <= L - 1) c = hi(c, m0, n[k - r - 1]);
  if (k - r - 1 >= 0 && k - r - 1 <= L - 1) c = lo(c, m1, n[k - r - 1]);
  if (k - r - 2 >= 0 && k - r - 2 <= L - 1) c = hi(c, m1, n[k - r - 2]);
  return c;
}

// Rows i and i+1 of the cross products into t. Columns the rows above never
// reached start from zero instead of from t (for rows 0 and 1, all of them;
// below, the last two), so t needs no clearing first: that clearing was 2 %
// of a 2048-bit squaring.
template <bool kFirst, class G>
POWPRIME_IFMA inline void cross_rows(G* t, const G* a, int i, int L) {
  const G z = zero<G>();
  const G x0 = a[i], x1 = a[i + 1];
  const auto from = [&](int k) POWPRIME_IFMA_OP { return kFirst ? z : t[k]; };
  if (i + 4 > L) {  // the last pair, a short one: every column by its conditions
    const int fresh = kFirst ? 0 : i + L;
    for (int k = 2 * i + 1; k <= i + L + 1; k++) t[k] = cross_column(k >= fresh ? z : t[k], a, x0, x1, i, k, L);
    return;
  }
  // The first three columns and the last two hold fixed subsets of the four
  // products (the others would be squares, or past the top digit), written
  // out so that no column tests a condition. With the conditions there, the
  // cross products ran at about 73 % of the multipliers' rate (the
  // reduction, whose columns are nearly all full, at 98 %); without, a test
  // took 0.170 against 0.179 ms at 2048 bits and 1.22 against 1.26 ms at
  // 4096 (Zen 5, sixteen lanes).
  t[2 * i + 1] = lo(from(2 * i + 1), x0, a[i + 1]);
  t[2 * i + 2] = lo(hi(from(2 * i + 2), x0, a[i + 1]), x0, a[i + 2]);
  t[2 * i + 3] = lo(hi(lo(from(2 * i + 3), x0, a[i + 3]), x0, a[i + 2]), x1, a[i + 2]);
  for (int k = 2 * i + 4; k <= i + L - 1; k++) {
    G c = lo(from(k), x0, a[k - i]);
    c = hi(c, x0, a[k - i - 1]);
    c = lo(c, x1, a[k - i - 1]);
    t[k] = hi(c, x1, a[k - i - 2]);
  }
  // Columns i + L and i + L + 1: above every earlier pair's, so from zero.
  t[i + L] = hi(lo(hi(z, x0, a[L - 1]), x1, a[L - 1]), x1, a[L - 2]);
  t[i + L + 1] = hi(z, x1, a[L - 1]);
}

// out = a²·R^−1 (mod n) under the same bounds as amm, with a quarter fewer
// multiplications: the square first (each cross product a_i·a_j once, the
// sum doubled, then the diagonal), then the reduction. Both go two rows at a
// time, column by column, so each accumulator's load and store carries four
// products (one row at a time, two, and the memory traffic ate the gain).
// The columns where all four products exist run without conditions.
template <class G>
POWPRIME_IFMA void sqr(G* out, const G* a, const G* n, const G& k0, int L, unsigned twice_lanes) {
  alignas(64) G t[2 * kMaxDigits + 2];
  const G z = zero<G>();
  // The row pairs write columns 1 to 2L − 1 (2L − 2 when L is odd) before the
  // diagonal reads them; column 0 and the top one are the diagonal's alone.
  t[0] = z;
  t[2 * L - 1] = z;
  cross_rows<true>(t, a, 0, L);
  for (int i = 2; i + 1 < L; i += 2) cross_rows<false>(t, a, i, L);
  // Double, then add the squares a_i² on the diagonal.
  for (int k = 0; k < L; k++) {
    t[2 * k] = lo(twice(t[2 * k]), a[k], a[k]);
    t[2 * k + 1] = hi(twice(t[2 * k + 1]), a[k], a[k]);
  }
  // Reduction: for digit r, m = t_r·k0 mod 2^52 makes t_r + m·n_0 divisible
  // by 2^52; its carry moves up before the next factor is taken from t_{r+1}.
  int r = 0;
  for (; r + 1 < L; r += 2) {
    const G m0 = lo(z, t[r], k0);
    G c = add(t[r + 1], carry(lo(t[r], m0, n[0])));
    c = lo(hi(c, m0, n[0]), m0, n[1]);
    const G m1 = lo(z, c, k0);
    t[r + 2] = add(t[r + 2], carry(lo(c, m1, n[0])));
    int k = r + 2;
    for (; k < r + 3; k++) t[k] = reduce_column(t[k], n, m0, m1, r, k, L);
    for (; k <= r + L - 1; k++) {
      G d = lo(t[k], m0, n[k - r]);
      d = hi(d, m0, n[k - r - 1]);
      d = lo(d, m1, n[k - r - 1]);
      t[k] = hi(d, m1, n[k - r - 2]);
    }
    for (; k <= r + L + 1; k++) t[k] = reduce_column(t[k], n, m0, m1, r, k, L);
  }
  if (r < L) {  // L odd: the last digit alone
    const G m = lo(z, t[r], k0);
    G c = add(t[r + 1], carry(lo(t[r], m, n[0])));
    c = hi(c, m, n[0]);
    t[r + 1] = L > 1 ? lo(c, m, n[1]) : c;
    for (int k = r + 2; k <= r + L; k++) {
      G d = hi(t[k], m, n[k - r - 1]);
      if (k - r <= L - 1) d = lo(d, m, n[k - r]);
      t[k] = d;
    }
  }
  normalize(out, t + L, L, twice_lanes);
}

template <class G>
POWPRIME_IFMA void run(const u64* const* n, int count, int limbs, bool* out) {
  constexpr int kLanes = kRegLanes * G::kRegs;
  int top = 0;
  for (int k = 0; k < count; k++) top = std::max(top, bit_length(n[k], limbs));
  // The words above the widest number are zero padding: work on the number's size.
  limbs = std::min(limbs, (top + 63) / 64);
  // At least two digits: the products read n_1.
  const int L = std::max(2, digits_for(top));
  // Lanes past count repeat lane 0; their answers are dropped.
  const u64* lane[kLanes];
  for (int k = 0; k < kLanes; k++) lane[k] = n[k < count ? k : 0];

  alignas(64) G N[kMaxDigits], acc[kMaxDigits];
  alignas(64) u64 col[kLanes][kMaxDigits];
  alignas(64) u64 k0s[kLanes];
  for (int k = 0; k < kLanes; k++) {
    to_digits<kIfmaDigitBits>(col[k], L, lane[k], limbs);
    k0s[k] = neg_inverse_mod_2_64(lane[k][0]) & kDigitMask;
  }
  gather(N, col, L);
  G k0;
  for (int i = 0; i < G::kRegs; i++) k0.r[i] = _mm512_load_si512(k0s + kRegLanes * i);
  for (int k = 0; k < kLanes; k++) montgomery_one(col[k], lane[k], limbs, L);
  gather(acc, col, L);

  // 2^(n−1), left to right: square, then double in the lanes whose exponent
  // bit is set. Bit 0 of n − 1 is 0 (n is odd); above bit 0 it is n's bit.
  for (int i = top - 1; i >= 0; i--) {
    unsigned lanes = 0;
    if (i > 0)
      for (int k = 0; k < kLanes; k++) lanes |= unsigned(bit(lane[k], i)) << k;
    if (L >= kSqrMinDigits)
      sqr(acc, acc, N, k0, L, lanes);
    else
      amm(acc, acc, acc, N, k0, L, lanes);
  }
  // Out of the Montgomery domain: a·1·R^−1 is below n + 1 and never n (2 is
  // invertible mod n), so it is the exact residue; compare it with 1.
  alignas(64) G one[kMaxDigits];
  for (int j = 0; j < L; j++) one[j] = zero<G>();
  for (int i = 0; i < G::kRegs; i++) one[0].r[i] = _mm512_set1_epi64(1);
  amm(acc, acc, one, N, k0, L, 0);
  for (int i = 0; i < G::kRegs; i++) {
    V diff = _mm512_xor_si512(acc[0].r[i], one[0].r[i]);
    for (int j = 1; j < L; j++) diff = _mm512_or_si512(diff, acc[j].r[i]);
    const __mmask8 is_one = _mm512_testn_epi64_mask(diff, diff);
    for (int k = kRegLanes * i; k < std::min(count, kRegLanes * (i + 1)); k++)
      out[k] = (is_one >> (k - kRegLanes * i)) & 1;
  }
}

}  // namespace

// A batch that fits one register's eight lanes runs alone: two chains
// would cost it twice the products for the same answers.
void fermat2_vertical(const u64* const* n, int count, int limbs, bool* out) {
  if (count <= kRegLanes)
    run<G1>(n, count, limbs, out);
  else
    run<G2>(n, count, limbs, out);
}

}  // namespace powprime::bignum
#endif
