#include "fermat_vertical_avx2.h"

#include "digits.h"
#include "lane_group.h"
#include "pow2_mod.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>

#define POWPRIME_AVX2 __attribute__((target("avx2")))
// A group is never passed or returned by value across a call: the
// functions that return one are always inlined, the others take references.
// In the sanitizer build (GCC 12 -O2, which leaves more functions out of
// line) a one-register group passed by value lost its upper two lanes'
// doubling masks on the way into the product, and the sieve called a
// composite p prime; passed this way every build agrees (GCC -O0 to -O3
// with and without the sanitizers, and clang).
#define POWPRIME_AVX2_OP __attribute__((target("avx2"), always_inline))

namespace powprime::bignum {
namespace {

using V = __m256i;
struct Ymm {
  using V = __m256i;
};

// A group of lanes run as one: G1 is one register (four lanes), G2 two
// independent ones (eight), as in the IFMA kernel.
using G1 = LaneGroup<Ymm, 1>;
using G2 = LaneGroup<Ymm, 2>;
using G4 = LaneGroup<Ymm, 4>;
constexpr int kRegLanes = G1::kRegLanes;
static_assert(G4::kRegs * kRegLanes == kAvx2Lanes, "the widest group holds every lane of a batch");

template <class G>
POWPRIME_AVX2_OP inline G zero() {
  G o;
  for (int i = 0; i < G::kRegs; i++) o.r[i] = _mm256_setzero_si256();
  return o;
}
// a + b·c, b and c under 2^32 in each lane (vpmuludq reads the low halves).
template <class G>
POWPRIME_AVX2_OP inline G mul_add(G a, G b, G c) {
  for (int i = 0; i < G::kRegs; i++) a.r[i] = _mm256_add_epi64(a.r[i], _mm256_mul_epu32(b.r[i], c.r[i]));
  return a;
}
template <class G>
POWPRIME_AVX2_OP inline G add(G a, G b) {
  for (int i = 0; i < G::kRegs; i++) a.r[i] = _mm256_add_epi64(a.r[i], b.r[i]);
  return a;
}
template <int kBits, class G>
POWPRIME_AVX2_OP inline G shr(G a) {
  for (int i = 0; i < G::kRegs; i++) a.r[i] = _mm256_srli_epi64(a.r[i], kBits);
  return a;
}
template <class G>
POWPRIME_AVX2_OP inline G and_(G a, G b) {
  for (int i = 0; i < G::kRegs; i++) a.r[i] = _mm256_and_si256(a.r[i], b.r[i]);
  return a;
}
template <class G>
POWPRIME_AVX2_OP inline G splat(u64 v) {
  G o;
  for (int i = 0; i < G::kRegs; i++) o.r[i] = _mm256_set1_epi64x((long long)v);
  return o;
}

// Sixteen lanes (four registers) up to this size, two groups of eight
// above: four registers' chains beat two by 1.33× a test at 1024 bits and
// 1.11× at 2048, and lost by 2–6 % from 3072 on, where the wider group's
// columns no longer fit the first-level cache (Zen 3, medians of seven).
constexpr int kG4MaxBits = 2560;

// The widest number at 27-bit digits needs this many (R = 2^(27·L) ≥ 16n).
constexpr int kMaxDigits = (kAvx2MaxBits + 4 + 26) / 27;

// The radix for a number of `bits` bits: 28-bit digits while a product's
// sums fit (below), else 27. A Montgomery product adds, to each 64-bit
// accumulator, at most two products under 2^(2r) a step for L steps, plus
// carries under 2^(64−r): 2L·2^(2r) < 2^64 holds for r = 28 up to L = 127
// digits and for r = 27 up to 511, past the widest lane.
constexpr int kMaxDigits28 = 127;
constexpr int radix_for(int bits) { return (bits + 4 + 27) / 28 <= kMaxDigits28 ? 28 : 27; }
constexpr int digits_for(int bits, int r) { return (bits + 4 + r - 1) / r; }
static_assert(digits_for(kAvx2MaxBits, 27) <= kMaxDigits && 2 * kMaxDigits < 1024 && 2 * kMaxDigits28 < 256,
              "a product's sums fit 64 bits at both radixes");

// The most digits a group meets: four registers run only up to kG4MaxBits,
// in 28-bit digits, so their stack arrays (128 bytes a digit) are sized for
// that rather than for the widest number (about 200 KB less stack).
static_assert(radix_for(kG4MaxBits) == 28, "four registers run 28-bit digits only");
template <class G>
constexpr int max_digits() {
  return G::kRegs == 4 ? digits_for(kG4MaxBits, 28) : kMaxDigits;
}

// out = t normalised to digits under 2^r, then doubled in the lanes whose
// mask is all ones (`twice`), again with carries. t is below 2n and
// R = 2^(r·L) ≥ 16n, so neither value carries out of the top digit.
template <int kR, class G>
POWPRIME_AVX2 void normalize(G* out, const G* t, int L, const G& twice) {
  const G mask = splat<G>((u64(1) << kR) - 1);
  G c = zero<G>(), c2 = zero<G>();
  for (int j = 0; j < L; j++) {
    const G v = add(t[j], c);
    G d = and_(v, mask);
    c = shr<kR>(v);
    d = add(add(d, and_(d, twice)), c2);  // d < 2^(r+1) + 2
    out[j] = and_(d, mask);
    c2 = shr<kR>(d);
  }
}

// out = a·b·R^−1 (mod n) in every lane, for a, b below 4n with digits under
// 2^r; out is below 2n, normalised, then doubled where `twice` says.
// Operand scanning, two digits of a a pass: each pass adds a_i·b, m_i·n,
// a_{i+1}·b and m_{i+1}·n and drops two digits. The whole products land in
// one digit each, and the sums wait for normalize. Two rows a pass because
// one row a pass loaded t, b and n and stored t for every two products,
// which kept Zen 3's load ports, not its multipliers, busy; two rows carry
// four products on the same traffic (b_{j+1} and n_{j+1} stay in registers
// from the column before).
template <int kR, class G>
POWPRIME_AVX2 void amm(G* out, const G* a, const G* b, const G* n, const G& k0, int L, const G& twice) {
  alignas(32) G t[max_digits<G>() + 1];
  const G z = zero<G>();
  const G mask = splat<G>((u64(1) << kR) - 1);
  for (int j = 0; j < L; j++) t[j] = z;
  int i = 0;
  for (; i + 1 < L; i += 2) {
    const G x = a[i], y = a[i + 1];
    // vpmuludq reads u's low 32 bits, enough for m = u·k0 mod 2^r.
    G u = mul_add(t[0], x, b[0]);
    const G m0 = and_(mul_add(z, u, k0), mask);
    u = mul_add(u, m0, n[0]);
    G v = mul_add(mul_add(add(t[1], shr<kR>(u)), x, b[1]), m0, n[1]);  // digit 0 after row i
    v = mul_add(v, y, b[0]);
    const G m1 = and_(mul_add(z, v, k0), mask);
    v = mul_add(v, m1, n[0]);
    G b1 = b[1], n1 = n[1];
    t[0] = mul_add(mul_add(add(t[2], shr<kR>(v)), y, b1), m1, n1);  // + row i's column 2, below
    t[0] = mul_add(mul_add(t[0], x, b[2]), m0, n[2]);
    b1 = b[2];
    n1 = n[2];
    for (int k = 1; k + 2 < L; k++) {
      const G b2 = b[k + 2], n2 = n[k + 2];
      t[k] = mul_add(mul_add(mul_add(mul_add(t[k + 2], x, b2), m0, n2), y, b1), m1, n1);
      b1 = b2;
      n1 = n2;
    }
    t[L - 2] = mul_add(mul_add(z, y, b1), m1, n1);
    t[L - 1] = z;
  }
  if (i < L) {  // L odd: the last digit alone
    const G x = a[i];
    G u = mul_add(t[0], x, b[0]);
    const G m = and_(mul_add(z, u, k0), mask);
    u = mul_add(u, m, n[0]);
    t[0] = mul_add(mul_add(add(t[1], shr<kR>(u)), x, b[1]), m, n[1]);
    for (int j = 2; j < L; j++) t[j - 1] = mul_add(mul_add(t[j], x, b[j]), m, n[j]);
    t[L - 1] = z;
  }
  normalize<kR>(out, t, L, twice);
}

// From this many digits sqr runs four rows a pass, not two: the square's
// columns (2L + 1 of them, with n's and a's digits) no longer fit the
// first-level cache, and four rows halve the passes over them. Below it the
// four rows' factors crowd the registers and cost more than they save
// (Zen 3, fermatBase2 batches of 16, CPU time a test, medians: two rows
// against four 0.18/0.25 ms at 1024 bits and 4.2/4.5 at 3072; at 5120 bits
// (190 digits) a tie, 20.9/20.5; 39.1/37.0 at 6144 and 95.9/85.9 at 8192).
constexpr int kFourRowDigits = 160;
// So only 27-bit digits in groups of one or two registers get there: the
// other instantiations leave the four-row code out (the prebuilds' size).
static_assert(kMaxDigits28 < kFourRowDigits && digits_for(kG4MaxBits, 28) < kFourRowDigits,
              "four rows: 27-bit digits only");
template <int kR, class G>
constexpr bool may_run_four_rows() {
  return kR == 27 && G::kRegs <= 2;
}

// out = a²·R^−1 (mod n) under amm's bounds, with a quarter fewer products:
// the square first (each a_i·a_j once, the sum doubled, then the diagonal),
// then the reduction, both two rows a pass as in amm (four from
// kFourRowDigits: the same products in the same columns, so the same
// bound, and each column is used only once it is complete). A column sums at most
// L + 1 products of the square and L of the reduction, each under 2^(2r),
// plus a carry under 2^(64−r): under 2^64 by the same bound as amm's.
template <int kR, class G>
POWPRIME_AVX2 void sqr(G* out, const G* a, const G* n, const G& k0, int L, const G& twice) {
  alignas(32) G t[2 * max_digits<G>() + 1];
  const G z = zero<G>();
  const G mask = splat<G>((u64(1) << kR) - 1);
  for (int k = 0; k <= 2 * L; k++) t[k] = z;
  // Cross products, rows i to i + 3 (from kFourRowDigits), then two rows a
  // pass, then the one or two left: a_i·a_j lands in column i + j, j > i.
  // Row i + q first reaches column 2i + 2q + 1, so the four rows' first six
  // columns take one to three of them.
  int i = 0;
  for (; may_run_four_rows<kR, G>() && L >= kFourRowDigits && i + 7 <= L; i += 4) {
    const G x0 = a[i], x1 = a[i + 1], x2 = a[i + 2], x3 = a[i + 3];
    t[2 * i + 1] = mul_add(t[2 * i + 1], x0, a[i + 1]);
    t[2 * i + 2] = mul_add(t[2 * i + 2], x0, a[i + 2]);
    t[2 * i + 3] = mul_add(mul_add(t[2 * i + 3], x0, a[i + 3]), x1, a[i + 2]);
    t[2 * i + 4] = mul_add(mul_add(t[2 * i + 4], x0, a[i + 4]), x1, a[i + 3]);
    t[2 * i + 5] = mul_add(mul_add(mul_add(t[2 * i + 5], x0, a[i + 5]), x1, a[i + 4]), x2, a[i + 3]);
    t[2 * i + 6] = mul_add(mul_add(mul_add(t[2 * i + 6], x0, a[i + 6]), x1, a[i + 5]), x2, a[i + 4]);
    for (int k = 2 * i + 7; k <= i + L - 1; k++) {
      const int j = k - i;
      t[k] = mul_add(mul_add(mul_add(mul_add(t[k], x0, a[j]), x1, a[j - 1]), x2, a[j - 2]), x3, a[j - 3]);
    }
    t[i + L] = mul_add(mul_add(mul_add(t[i + L], x1, a[L - 1]), x2, a[L - 2]), x3, a[L - 3]);
    t[i + L + 1] = mul_add(mul_add(t[i + L + 1], x2, a[L - 1]), x3, a[L - 2]);
    t[i + L + 2] = mul_add(t[i + L + 2], x3, a[L - 1]);
  }
  for (; i + 3 <= L; i += 2) {
    const G x = a[i], y = a[i + 1];
    t[2 * i + 1] = mul_add(t[2 * i + 1], x, y);
    t[2 * i + 2] = mul_add(t[2 * i + 2], x, a[i + 2]);
    G prev = a[i + 2];
    for (int k = 2 * i + 3; k <= i + L - 1; k++) {
      const G cur = a[k - i];
      t[k] = mul_add(mul_add(t[k], x, cur), y, prev);
      prev = cur;
    }
    t[i + L] = mul_add(t[i + L], y, a[L - 1]);
  }
  for (; i < L; i++)  // the one or two rows left
    for (int j = i + 1; j < L; j++) t[i + j] = mul_add(t[i + j], a[i], a[j]);
  for (int k = 0; k < L; k++) {
    t[2 * k] = mul_add(add(t[2 * k], t[2 * k]), a[k], a[k]);
    t[2 * k + 1] = add(t[2 * k + 1], t[2 * k + 1]);
  }
  // Reduction: m = t_r·k0 mod 2^r makes t_r + m·n_0 divisible by 2^r; its
  // carry moves up before the next factor is taken from t_{r+1}, which by
  // then holds every product of its column but m_{r+1}·n_0.
  int r = 0;
  for (; may_run_four_rows<kR, G>() && L >= kFourRowDigits && r + 3 < L; r += 4) {
    const G m0 = and_(mul_add(z, t[r], k0), mask);
    const G c1 = mul_add(add(t[r + 1], shr<kR>(mul_add(t[r], m0, n[0]))), m0, n[1]);
    const G m1 = and_(mul_add(z, c1, k0), mask);
    const G c2 = mul_add(mul_add(add(t[r + 2], shr<kR>(mul_add(c1, m1, n[0]))), m0, n[2]), m1, n[1]);
    const G m2 = and_(mul_add(z, c2, k0), mask);
    const G c3 = mul_add(mul_add(mul_add(add(t[r + 3], shr<kR>(mul_add(c2, m2, n[0]))), m0, n[3]), m1, n[2]), m2, n[1]);
    const G m3 = and_(mul_add(z, c3, k0), mask);
    t[r + 4] = add(t[r + 4], shr<kR>(mul_add(c3, m3, n[0])));
    for (int k = r + 4; k <= r + L - 1; k++) {
      const int j = k - r;
      t[k] = mul_add(mul_add(mul_add(mul_add(t[k], m0, n[j]), m1, n[j - 1]), m2, n[j - 2]), m3, n[j - 3]);
    }
    t[r + L] = mul_add(mul_add(mul_add(t[r + L], m1, n[L - 1]), m2, n[L - 2]), m3, n[L - 3]);
    t[r + L + 1] = mul_add(mul_add(t[r + L + 1], m2, n[L - 1]), m3, n[L - 2]);
    t[r + L + 2] = mul_add(t[r + L + 2], m3, n[L - 1]);
  }
  for (; r + 1 < L; r += 2) {
    const G m0 = and_(mul_add(z, t[r], k0), mask);
    G c = mul_add(add(t[r + 1], shr<kR>(mul_add(t[r], m0, n[0]))), m0, n[1]);
    const G m1 = and_(mul_add(z, c, k0), mask);
    t[r + 2] = add(t[r + 2], shr<kR>(mul_add(c, m1, n[0])));
    G prev = n[1];
    for (int k = r + 2; k <= r + L - 1; k++) {
      const G cur = n[k - r];
      t[k] = mul_add(mul_add(t[k], m0, cur), m1, prev);
      prev = cur;
    }
    t[r + L] = mul_add(t[r + L], m1, n[L - 1]);
  }
  if (r < L) {  // L odd: the last digit alone
    const G m = and_(mul_add(z, t[r], k0), mask);
    t[r + 1] = add(t[r + 1], shr<kR>(mul_add(t[r], m, n[0])));
    for (int k = r + 1; k <= r + L - 1; k++) t[k] = mul_add(t[k], m, n[k - r]);
  }
  normalize<kR>(out, t + L, L, twice);
}

// The all-ones lanes of a group for the bits of `lanes`: each lane compares
// its own bit of the broadcast mask.
template <class G>
POWPRIME_AVX2_OP inline G lane_mask(unsigned lanes) {
  const V own = _mm256_set_epi64x(8, 4, 2, 1);
  G o;
  for (int i = 0; i < G::kRegs; i++) {
    const V b = _mm256_set1_epi64x((long long)((lanes >> (kRegLanes * i)) & 15));
    o.r[i] = _mm256_cmpeq_epi64(_mm256_and_si256(b, own), own);
  }
  return o;
}

template <int kR, class G>
POWPRIME_AVX2 void run(const u64* const* n, int count, int limbs, int top, bool* out) {
  static_assert(G::kRegs != 4 || kR == 28, "four registers' arrays hold 28-bit digits up to kG4MaxBits only");
  constexpr int kLanes = kRegLanes * G::kRegs;
  const int L = std::max(3, digits_for(top, kR));  // the two-row passes read b_2
  const u64* lane[kLanes];
  for (int k = 0; k < kLanes; k++) lane[k] = n[k < count ? k : 0];  // the rest repeat lane 0

  alignas(32) G N[max_digits<G>()], acc[max_digits<G>()];
  alignas(32) u64 col[kLanes][max_digits<G>()];
  alignas(32) u64 k0s[kLanes];
  alignas(32) u64 r_mod_n[kMaxPow2ModWords];
  for (int k = 0; k < kLanes; k++) {
    to_digits<kR>(col[k], L, lane[k], limbs);
    k0s[k] = neg_inverse_mod_2_64(lane[k][0]) & ((u64(1) << kR) - 1);
  }
  gather(N, col, L);
  G k0;
  for (int i = 0; i < G::kRegs; i++) k0.r[i] = _mm256_load_si256(reinterpret_cast<const V*>(k0s + kRegLanes * i));
  for (int k = 0; k < kLanes; k++) {
    pow2_mod_by_doubling(r_mod_n, lane[k], limbs, kR * L);
    to_digits<kR>(col[k], L, r_mod_n, limbs);
  }
  gather(acc, col, L);

  // 2^(n−1), left to right: square, then double in the lanes whose exponent
  // bit is set (bit 0 of n − 1 is 0; above it, n's bits).
  for (int i = top - 1; i >= 0; i--) {
    unsigned lanes = 0;
    if (i > 0)
      for (int k = 0; k < kLanes; k++) lanes |= unsigned(bit(lane[k], i)) << k;
    sqr<kR>(acc, acc, N, k0, L, lane_mask<G>(lanes));
  }
  // Out of the Montgomery domain: a·1·R^−1 is below n + 1 and never n, so
  // it is the exact residue; compare it with 1.
  alignas(32) G one[max_digits<G>()];
  for (int j = 0; j < L; j++) one[j] = zero<G>();
  one[0] = splat<G>(1);
  amm<kR>(acc, acc, one, N, k0, L, zero<G>());
  for (int i = 0; i < G::kRegs; i++) {
    V diff = _mm256_xor_si256(acc[0].r[i], one[0].r[i]);
    for (int j = 1; j < L; j++) diff = _mm256_or_si256(diff, acc[j].r[i]);
    const int is_one = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(diff, _mm256_setzero_si256())));
    for (int k = kRegLanes * i; k < std::min(count, kRegLanes * (i + 1)); k++)
      out[k] = (is_one >> (k - kRegLanes * i)) & 1;
  }
}

// top: the widest number's bits; the words above it are padding.
template <class G>
void run_radix(const u64* const* n, int count, int limbs, int top, bool* out) {
  if (radix_for(top) == 28)
    run<28, G>(n, count, limbs, top, out);
  else
    run<27, G>(n, count, limbs, top, out);
}

}  // namespace

void fermat2_vertical_avx2(const u64* const* n, int count, int limbs, bool* out) {
  int top = 0;
  for (int k = 0; k < count; k++) top = std::max(top, bit_length(n[k], limbs));
  // The limbs past the widest number are zero padding (and pow2_mod_by_doubling writes limbs + 1 words).
  limbs = std::min(limbs, (top + 63) / 64);
  if (count <= kRegLanes) {
    run_radix<G1>(n, count, limbs, top, out);
  } else if (count <= 2 * kRegLanes) {
    run_radix<G2>(n, count, limbs, top, out);
  } else if (top <= kG4MaxBits) {
    run<28, G4>(n, count, limbs, top, out);
  } else {
    run_radix<G2>(n, 2 * kRegLanes, limbs, top, out);
    run_radix<G2>(n + 2 * kRegLanes, count - 2 * kRegLanes, limbs, top, out + 2 * kRegLanes);
  }
}

}  // namespace powprime::bignum
#endif
