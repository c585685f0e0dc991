#include "montgomery.h"

#include <atomic>

#include "../cpu_features.h"
#include "mont_adx.h"
#include "mont_ifma.h"
#include "sliding_window.h"

namespace powprime::bignum {
namespace {

// Multiply-accumulate into a 192-bit column accumulator (lo: 128 bits, hi: 64).
inline void mac(u128& lo, u64& hi, u64 a, u64 b) {
  const u128 p = u128(a) * b;
  lo += p;
  hi += lo < p;
}

inline void shift_column(u128& lo, u64& hi) {
  lo = (lo >> 64) | (u128(hi) << 64);
  hi = 0;
}

// Montgomery product by product scanning with the reduction folded into the
// same columns (Koç's FIPS): the word products of a column are independent,
// so they overlap in the pipeline instead of waiting on one carry chain.
// N > 0: width fixed at compile time; N == 0: width len_rt.
template <int N>
void mont_mul(u64* r, const u64* a, const u64* b, const u64* n, u64 n0, int len_rt) {
  const int len = N ? N : len_rt;
  u64 m[N ? N : kMaxLimbs];
  u64 t[N ? N : kMaxLimbs];
  u128 lo = 0;
  u64 hi = 0;
  for (int i = 0; i < len; i++) {
#pragma GCC unroll 8
    for (int j = 0; j < i; j++) {
      mac(lo, hi, a[j], b[i - j]);
      mac(lo, hi, m[j], n[i - j]);
    }
    mac(lo, hi, a[i], b[0]);
    m[i] = u64(lo) * n0;
    mac(lo, hi, m[i], n[0]);
    shift_column(lo, hi);
  }
  for (int i = len; i < 2 * len; i++) {
#pragma GCC unroll 8
    for (int j = i - len + 1; j < len; j++) {
      mac(lo, hi, a[j], b[i - j]);
      mac(lo, hi, m[j], n[i - j]);
    }
    t[i - len] = u64(lo);
    shift_column(lo, hi);
  }
  final_sub(r, t, u64(lo), n, len);
}

// Squaring: each cross product a[j]·a[k] (j < k) is computed once and the
// column's cross sum doubled, then the square term and the reduction added.
template <int N>
void mont_sqr(u64* r, const u64* a, const u64* n, u64 n0, int len_rt) {
  const int len = N ? N : len_rt;
  u64 m[N ? N : kMaxLimbs];
  u64 t[N ? N : kMaxLimbs];
  u128 lo = 0;
  u64 hi = 0;
  for (int i = 0; i < 2 * len; i++) {
    const int jlo = i < len ? 0 : i - len + 1;
    u128 clo = 0;
    u64 chi = 0;
    for (int j = jlo; j < i - j; j++) mac(clo, chi, a[j], a[i - j]);
    chi = (chi << 1) | u64(clo >> 127);
    clo <<= 1;
    lo += clo;
    hi += chi + (lo < clo);
    if (!(i & 1)) mac(lo, hi, a[i / 2], a[i / 2]);
    const int jm = i < len ? i : len;
    for (int j = jlo; j < jm; j++) mac(lo, hi, m[j], n[i - j]);
    if (i < len) {
      m[i] = u64(lo) * n0;
      mac(lo, hi, m[i], n[0]);
    } else {
      t[i - len] = u64(lo);
    }
    shift_column(lo, hi);
  }
  final_sub(r, t, u64(lo), n, len);
}

}  // namespace

MulKernel best_bignum_kernel() {
  static const MulKernel best = ifma_usable() && mont_adx_compiled() && cpu_features().bmi2 && cpu_features().adx
                                 ? MulKernel::ifma
                             : mont_adx_compiled() && cpu_features().bmi2 && cpu_features().adx ? MulKernel::adx
                                                                                                 : MulKernel::portable;
  return best;
}

namespace {
std::atomic<int> g_cap{int(MulKernel::ifma)};
bool use_adx() { return bignum_kernel() >= MulKernel::adx; }
}  // namespace

MulKernel set_bignum_kernel(MulKernel cap) {
  const MulKernel k = cap < best_bignum_kernel() ? cap : best_bignum_kernel();
  g_cap.store(int(k));
  return k;
}

MulKernel bignum_kernel() {
  const int cap = g_cap.load(std::memory_order_relaxed);
  const int best = int(best_bignum_kernel());
  return MulKernel(cap < best ? cap : best);
}

const char* bignum_kernel_name(MulKernel k) {
  switch (k) {
    case MulKernel::ifma: return "avx512-ifma x8 + mulx/adx";
    case MulKernel::adx: return "mulx/adx";
    default: return "portable";
  }
}

Mont::Mont(const u64* n, int limbs) : n_(trimmed(n, limbs)), mod_(n, n + trimmed(n, limbs)) {
  if (use_adx()) {
    // The ADX rows run four words per turn: widen to a multiple of 4 words.
    // Montgomery arithmetic only needs R = 2^(64·width) > n, so zero words on top are harmless.
    n_ = (n_ + 3) & ~3;
    mod_.resize(size_t(n_), 0);
  }
  n0_ = neg_inverse_mod_2_64(mod_[0]);
  switch (n_) {
#define POWPRIME_WIDTH(W) \
  case W:                 \
    mul_ = mont_mul<W>;   \
    sqr_ = mont_sqr<W>;   \
    break;
    POWPRIME_WIDTH(8)
    POWPRIME_WIDTH(16)
    POWPRIME_WIDTH(24)
    POWPRIME_WIDTH(32)
    POWPRIME_WIDTH(48)
#undef POWPRIME_WIDTH
    default:
      mul_ = mont_mul<0>;
      sqr_ = mont_sqr<0>;
  }
  // Below 3072 bits the squaring's irregular column loops cost more than the
  // cross products they save (measured: 2048-bit pow2 2.0 ms through mul,
  // 2.3 ms through sqr; 4096-bit 16.0 vs 14.5 ms), so squares go through mul there.
  if (n_ < 48) sqr_ = nullptr;
  if (use_adx()) {
    mul_ = mont_mul_adx;
    sqr_ = mont_sqr_adx;
  }
  // R mod n: from 2^(bits−1) < n, double up to 2^(64·limbs). R^2 mod n is then
  // the Montgomery form of 2^(64·limbs): a short pow2, not 64·limbs more doublings.
  const int bits = bit_length(mod_.data(), n_);
  one_.assign(n_, 0);
  one_[(bits - 1) / 64] = u64(1) << ((bits - 1) % 64);
  for (int i = bits - 1; i < 64 * n_; i++) dbl(one_.data(), one_.data());
  r2_.assign(n_, 0);
  u64 e[2] = {u64(64) * n_, 0};
  pow2_words(r2_.data(), e, 1);
}

void Mont::from_mont(u64* r, const u64* a) const {
  u64 unit[kMaxLimbs] = {1};
  mul(r, a, unit);
}

void Mont::add(u64* r, const u64* a, const u64* b) const {
  u64 t[kMaxLimbs];
  const u64 c = bignum::add(t, a, b, n_);
  final_sub(r, t, c, mod_.data(), n_);
}

void Mont::sub(u64* r, const u64* a, const u64* b) const {
  if (bignum::sub(r, a, b, n_)) bignum::add(r, r, mod_.data(), n_);
}

void Mont::dbl(u64* r, const u64* a) const { add(r, a, a); }

void Mont::half(u64* r, const u64* a) const {
  if (a[0] & 1) {
    u64 t[kMaxLimbs];
    const u64 c = bignum::add(t, a, mod_.data(), n_);
    shr1(r, t, n_, c);
  } else {
    shr1(r, a, n_);
  }
}

void Mont::pow_words(u64* r, const u64* base, const u64* e, int e_limbs) const {
  const int bits = bit_length(e, e_limbs);
  if (bits == 0) {
    std::memcpy(r, one(), sizeof(u64) * n_);
    return;
  }
  const int w = window_bits(bits);
  // Odd powers base^1, base^3, …, base^(2^w − 1).
  std::vector<u64> table(size_t(n_) << (w - 1));
  u64 sq[kMaxLimbs];
  std::memcpy(table.data(), base, sizeof(u64) * n_);
  sqr(sq, base);
  for (int i = 1; i < (1 << (w - 1)); i++) mul(&table[size_t(i) * n_], &table[size_t(i - 1) * n_], sq);

  u64 acc[kMaxLimbs];
  const size_t n = size_t(n_);
  sliding_window(
      e, bits, w, [&](unsigned k) { std::memcpy(acc, &table[k * n], sizeof(u64) * n); },
      [&] { sqr(acc, acc); }, [&](unsigned k) { mul(acc, acc, &table[k * n]); });
  std::memcpy(r, acc, sizeof(u64) * n_);
}

void Mont::pow2_words(u64* r, const u64* e, int e_limbs) const {
  const int bits = bit_length(e, e_limbs);
  u64 acc[kMaxLimbs];
  std::memcpy(acc, one(), sizeof(u64) * n_);
  if (bits > 0) dbl(acc, acc);
  for (int i = bits - 2; i >= 0; i--) {
    sqr(acc, acc);
    if (bit(e, i)) dbl(acc, acc);
  }
  std::memcpy(r, acc, sizeof(u64) * n_);
}

// One IFMA product waits on a scalar step per digit (the Montgomery factor m),
// so alone it beats the ADX kernel only for wide moduli (measured: 1024-bit
// modexp 0.32 ms either way, 2048-bit 1.07 vs 1.9 ms). The sieve's Fermat
// tests, the bulk of a search, use IFMA at every width through
// fermat_base2_many, eight numbers in eight lanes (fermat_vertical.h).
constexpr int kIfmaMinBits = 1100;

bool Mont::uses_ifma() const {
  const int bits = bit_length(mod_.data(), n_);
  return bignum_kernel() == MulKernel::ifma && bits >= kIfmaMinBits && bits <= kIfmaMaxBits;
}

void Mont::ifma_r2(u64* out) const {
  u64 e[1] = {u64(ifma_r2_exponent(bit_length(mod_.data(), n_)))};
  u64 t[kMaxLimbs];
  pow2_words(t, e, 1);
  from_mont(out, t);
}

void Mont::pow(u64* r, const u64* base, const u64* e, int e_limbs) const {
  if (!uses_ifma()) return pow_words(r, base, e, e_limbs);
  u64 plain[kMaxLimbs], r2[kMaxLimbs], out[kMaxLimbs];
  from_mont(plain, base);
  ifma_r2(r2);
  ifma_modexp(out, plain, e, e_limbs, mod_.data(), n_, r2);
  to_mont(r, out);
}

void Mont::pow2(u64* r, const u64* e, int e_limbs) const {
  if (!uses_ifma()) return pow2_words(r, e, e_limbs);
  u64 r2[kMaxLimbs], out[kMaxLimbs];
  ifma_r2(r2);
  ifma_pow2(out, e, e_limbs, mod_.data(), n_, r2);
  to_mont(r, out);
}

}  // namespace powprime::bignum
