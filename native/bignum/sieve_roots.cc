#include "sieve_roots.h"

#include <cstring>
#include <vector>

#include "../cpu_features.h"
#include "kernel_in_force.h"

namespace powprime::bignum {
namespace {

// Adding and taking away 1.5·2^52 rounds a value below 2^51 in magnitude to
// the nearest integer (the sum lies where doubles are one apart).
constexpr double kRound = 6755399441055744.0;
// Primes a pass: their residues, primes and reciprocals stay in L1 while every digit goes by.
constexpr size_t kBlock = 256;
// Digit widths: 24 bits below 2^28, 21 bits from 2^28 to 2^32 (see residues_body).
constexpr uint32_t kWideFrom = 1u << 28;

constexpr double kTwelfth = 1.0 / 12;

// The nearest integer to x, |x| < 2^51.
__attribute__((always_inline)) inline double nearest(double x) { return (x + kRound) - kRound; }

// 12⁻¹ mod r for a prime r ≥ 5, in doubles so that every ISA's copy
// vectorises: (k·r + 1)/12 with k = 12 − (r mod 12) (every unit u modulo 12
// has u² ≡ 1, so k·r ≡ −r² ≡ −1); r mod 12 comes from the nearest integer to
// (r − 6)/12, which is r's quotient by 12 as r mod 12 ∈ {1, 5, 7, 11}.
__attribute__((always_inline)) inline double twelfth_mod(double r) {
  const double rq = nearest((r - 6) * kTwelfth);
  return nearest(((12 - (r - 12 * rq)) * r + 1) * kTwelfth);
}

// t + i mod r for t, i in [0, r).
__attribute__((always_inline)) inline double add_mod(double t, double i, double r) {
  const double c = t + i;
  return c - (c >= r ? r : 0.0);
}

// The roots of start for r in ps[0..n), n ≤ kBlock, from start's D-bit
// digits least significant first. Residues are kept signed, |res| ≤ r/2 + 1: with the quotient rounded
// to nearest, x − q·r needs no correction inside the loop, so a digit costs
// four instructions a lane (two fused multiply-adds, a subtraction, a fused
// negated multiply-add) and no compares. x = res·2^D + digit stays below
// 2^52 + 2^33 in magnitude (D = 24 with r < 2^28, D = 21 with r < 2^32), so
// it and the integer q·r are exact doubles; x/r is below 2^23, so the rounded
// quotient is within 1/2 + 2^-29 of it and |res| stays within r/2 + 1.
// Inlined into each target's copy so that each is vectorised for its own ISA.
template <int D>
__attribute__((always_inline)) inline void roots_body(const double* __restrict digits, int nd,
                                                      const uint32_t* __restrict ps, size_t n, uint32_t* __restrict t0,
                                                      uint32_t* __restrict t1) {
  constexpr double kDigitBase = double(1u << D);
  double r[kBlock], inv[kBlock], res[kBlock];
  for (size_t k = 0; k < n; k++) {
    r[k] = double(ps[k]);
    inv[k] = 1.0 / r[k];
    res[k] = 0;
  }
  for (int i = nd - 1; i >= 0; i--) {
    const double d = digits[i];
    for (size_t k = 0; k < n; k++) {
      const double x = res[k] * kDigitBase + d;
      const double q = (x * inv[k] + kRound) - kRound;
      res[k] = x - q * r[k];
    }
  }
  // The roots from a = −start mod r, in the same lanes (a scalar loop of
  // divisions by 12 took longer than the residues): 12·t0 ≡ a and 12·t1 ≡ a + 1
  // (mod r). a + c·r is a multiple of 12 for c ≡ −a·r (mod 12) (r is its own
  // inverse mod 12), and (a + c·r)/12 < r is t0: below 12·r < 2^36, so every
  // step is an exact double, and the nearest integers below take quotients
  // by 12 of integers (a value m/12 − 11/24 with m's remainder in 0..11 is
  // within 11/24 of the quotient). t1 = t0 + 12⁻¹.
  for (size_t k = 0; k < n; k++) {
    const double s = res[k] + r[k] * double(res[k] < 0);
    const double a = s == 0 ? 0.0 : r[k] - s;
    const double a12 = a - 12 * nearest((a - 5.5) * kTwelfth);
    const double r12 = r[k] - 12 * nearest((r[k] - 5.5) * kTwelfth);
    const double cr = (12 - a12) * r12;
    const double c = cr - 12 * nearest((cr - 5.5) * kTwelfth);
    const double root = nearest((a + c * r[k]) * kTwelfth);
    t0[k] = uint32_t(root);
    t1[k] = uint32_t(add_mod(root, twelfth_mod(r[k]), r[k]));
  }
}

// How shift_body reduces δ: not at all (no shift), δ itself (every r of the
// block above δ: the common case, as δ is 4·bits² a step), or by division.
enum class Shift { kNone, kBelowR, kAny };

// t0 ← (t0 − δ mod r) mod r, then t1 = t0 + 12⁻¹ mod r, in doubles so that
// every ISA's copy vectorises. δ < 2^52 is an exact double; the correctly
// rounded δ/r (below 2^36) is within 2^-17 of the quotient, so the nearest
// integer q leaves δ − q·r (an exact difference of integers below 2^53)
// within (−r, r), and one conditional add makes it δ mod r.
template <Shift S>
__attribute__((always_inline)) inline void shift_body(const uint32_t* __restrict ps, size_t n, double delta,
                                                      uint32_t* __restrict t0, uint32_t* __restrict t1) {
  for (size_t k = 0; k < n; k++) {
    const double r = double(ps[k]);
    double t = double(t0[k]);
    if (S != Shift::kNone) {
      double m = delta;
      if (S == Shift::kAny) {
        const double q = nearest(delta / r);
        m = delta - q * r;
        m += m < 0 ? r : 0.0;
      }
      t -= m;
      t += t < 0 ? r : 0.0;
      t0[k] = uint32_t(t);
    }
    t1[k] = uint32_t(add_mod(t, twelfth_mod(r), r));
  }
}

__attribute__((always_inline)) inline void shift_any(const uint32_t* ps, size_t n, uint64_t delta, uint32_t* t0,
                                                     uint32_t* t1) {
  if (delta == 0) return shift_body<Shift::kNone>(ps, n, 0, t0, t1);
  // A division a prime is most of a shift's cost; primes are taken in
  // blocks, and a block with every r above δ skips it.
  constexpr size_t kShiftBlock = 1024;
  for (size_t b = 0; b < n; b += kShiftBlock) {
    const size_t m = n - b < kShiftBlock ? n - b : kShiftBlock;
    uint32_t least = UINT32_MAX;
    for (size_t k = 0; k < m; k++) least = ps[b + k] < least ? ps[b + k] : least;
    if (least > delta)
      shift_body<Shift::kBelowR>(ps + b, m, double(delta), t0 + b, t1 + b);
    else
      shift_body<Shift::kAny>(ps + b, m, double(delta), t0 + b, t1 + b);
  }
}

using RootsFn = void (*)(const double*, int, const uint32_t*, size_t, uint32_t*, uint32_t*);
using ShiftFn = void (*)(const uint32_t*, size_t, uint64_t, uint32_t*, uint32_t*);
struct Kernels {
  RootsFn narrow, wide;  // 24-bit and 21-bit digits
  ShiftFn shift;
};

#define POWPRIME_ROOTS_KERNELS(suffix, attr)                                                                           \
  attr void roots24_##suffix(const double* digits, int nd, const uint32_t* ps, size_t n, uint32_t* t0, uint32_t* t1) { \
    roots_body<24>(digits, nd, ps, n, t0, t1);                                                                         \
  }                                                                                                                    \
  attr void roots21_##suffix(const double* digits, int nd, const uint32_t* ps, size_t n, uint32_t* t0, uint32_t* t1) { \
    roots_body<21>(digits, nd, ps, n, t0, t1);                                                                         \
  }                                                                                                                    \
  attr void shift_##suffix(const uint32_t* ps, size_t n, uint64_t delta, uint32_t* t0, uint32_t* t1) {                 \
    shift_any(ps, n, delta, t0, t1);                                                                                   \
  }                                                                                                                    \
  constexpr Kernels kKernels_##suffix{roots24_##suffix, roots21_##suffix, shift_##suffix};

#if defined(__x86_64__) || defined(_M_X64)
POWPRIME_ROOTS_KERNELS(avx512, __attribute__((target("avx512f"))))
POWPRIME_ROOTS_KERNELS(avx2, __attribute__((target("avx2,fma"))))
#endif
POWPRIME_ROOTS_KERNELS(portable, )
#undef POWPRIME_ROOTS_KERNELS

// Follows the bignum kernel in force, so that the tests that run a search on
// every kernel (setBignumKernel) run every copy of these loops on one machine:
// the IFMA kernel's CPUs have AVX-512F, the MULX/ADX kernel's nearly all AVX2.
const Kernels& pick() {
#if defined(__x86_64__) || defined(_M_X64)
  const char* id = kernel_in_force().id;
  if (std::strcmp(id, "ifma") == 0 && cpu_features().avx512f) return kKernels_avx512;
  if (std::strcmp(id, "portable") != 0 && cpu_features().avx2) return kKernels_avx2;
#endif
  return kKernels_portable;
}

// start's D-bit digits, least significant first.
std::vector<double> digits_of(const u64* start, int limbs, int d) {
  const int nd = (64 * limbs + d - 1) / d;
  std::vector<double> digits(static_cast<size_t>(nd));
  for (int i = 0; i < nd; i++) {
    const int bit = i * d, w = bit / 64, s = bit % 64;
    uint64_t v = start[w] >> s;
    if (s > 64 - d && w + 1 < limbs) v |= start[w + 1] << (64 - s);
    digits[size_t(i)] = double(v & ((uint64_t(1) << d) - 1));
  }
  return digits;
}

}  // namespace

void sieve_roots(const u64* start, int limbs, const uint32_t* primes, size_t n, uint32_t* t0, uint32_t* t1) {
  const Kernels& kernels = pick();
  const std::vector<double> narrow = digits_of(start, limbs, 24);
  std::vector<double> wide;  // made when a block holds a prime from 2^28 up
  for (size_t b = 0; b < n; b += kBlock) {
    const size_t m = n - b < kBlock ? n - b : kBlock;
    bool needs_wide = false;
    for (size_t k = 0; k < m; k++) needs_wide |= primes[b + k] >= kWideFrom;
    if (!needs_wide) {
      kernels.narrow(narrow.data(), int(narrow.size()), primes + b, m, t0 + b, t1 + b);
    } else {
      if (wide.empty()) wide = digits_of(start, limbs, 21);
      kernels.wide(wide.data(), int(wide.size()), primes + b, m, t0 + b, t1 + b);
    }
  }
}

void shift_roots(const uint32_t* primes, size_t n, uint64_t delta, uint32_t* t0, uint32_t* t1) {
  pick().shift(primes, n, delta, t0, t1);
}

bool twelfths_above(const u64* start, const u64* base, int limbs, uint64_t* delta) {
  u64 borrow = 0, low = 0;
  for (int i = 0; i < limbs; i++) {
    const u64 a = start[i], b = base[i];
    const u64 d = a - b - borrow;
    borrow = (a < b || (a == b && borrow)) ? 1 : 0;
    if (i == 0)
      low = d;
    else if (d)
      return false;
  }
  if (borrow || low % 12 != 0) return false;
  *delta = low / 12;
  return true;
}

}  // namespace powprime::bignum
