#include "sieve_roots.h"

#include <cstring>
#include <vector>

#include "../cpu_features.h"
#include "dispatch.h"

namespace powprime::bignum {
namespace {

constexpr int kDigitBits = 24;
constexpr double kDigitBase = double(1u << kDigitBits);
// Adding and taking away 1.5·2^52 rounds a value below 2^51 in magnitude to
// the nearest integer (the sum lies where doubles are one apart).
constexpr double kRound = 6755399441055744.0;
// Primes a pass: their residues, primes and reciprocals stay in L1 while every digit goes by.
constexpr size_t kBlock = 256;

// start mod r for r in ps[0..n), n ≤ kBlock, digits least significant first.
// Residues are kept signed, |res| ≤ r/2 + 1: with the quotient rounded to
// nearest, x − q·r needs no correction inside the loop, so a digit costs
// four instructions a lane (two fused multiply-adds, a subtraction, a fused
// negated multiply-add) and no compares. x = res·2^24 + digit stays below
// 2^52 in magnitude for r < 2^28, and q·r is an integer below 2^53, so every
// step is exact; the rounded quotient is within 1/2 + 2^-26 of x/r.
// Inlined into each target's copy so that each is vectorised for its own ISA.
__attribute__((always_inline)) inline void residues_body(const double* __restrict digits, int nd,
                                                         const uint32_t* __restrict ps, size_t n,
                                                         double* __restrict res) {
  double r[kBlock], inv[kBlock];
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
  for (size_t k = 0; k < n; k++) res[k] += r[k] * double(res[k] < 0);
}

#if defined(__x86_64__) || defined(_M_X64)
__attribute__((target("avx512f"))) void residues_avx512(const double* digits, int nd, const uint32_t* ps, size_t n,
                                                        double* res) {
  residues_body(digits, nd, ps, n, res);
}
__attribute__((target("avx2,fma"))) void residues_avx2(const double* digits, int nd, const uint32_t* ps, size_t n,
                                                       double* res) {
  residues_body(digits, nd, ps, n, res);
}
#endif
void residues_portable(const double* digits, int nd, const uint32_t* ps, size_t n, double* res) {
  residues_body(digits, nd, ps, n, res);
}

using ResiduesFn = void (*)(const double*, int, const uint32_t*, size_t, double*);

// Follows the bignum kernel in force, so that the tests that run a search on
// every kernel (setBignumKernel) run every copy of this loop on one machine:
// the IFMA kernel's CPUs have AVX-512F, the MULX/ADX kernel's nearly all AVX2.
ResiduesFn pick() {
#if defined(__x86_64__) || defined(_M_X64)
  const char* id = kernel_in_force().id;
  if (std::strcmp(id, "ifma") == 0 && cpu_features().avx512f) return residues_avx512;
  if (std::strcmp(id, "portable") != 0 && cpu_features().avx2) return residues_avx2;
#endif
  return residues_portable;
}

}  // namespace

void sieve_roots(const u64* start, int limbs, const uint32_t* primes, size_t n, uint32_t* t0, uint32_t* t1) {
  const ResiduesFn residues = pick();
  const int nd = (64 * limbs + kDigitBits - 1) / kDigitBits;
  std::vector<double> digits(static_cast<size_t>(nd));
  for (int i = 0; i < nd; i++) {
    const int bit = i * kDigitBits, w = bit / 64, s = bit % 64;
    uint64_t v = start[w] >> s;
    if (s > 64 - kDigitBits && w + 1 < limbs) v |= start[w + 1] << (64 - s);
    digits[size_t(i)] = double(v & ((1u << kDigitBits) - 1));
  }
  double res[kBlock];
  for (size_t b = 0; b < n; b += kBlock) {
    const size_t m = n - b < kBlock ? n - b : kBlock;
    residues(digits.data(), nd, primes + b, m, res);
    for (size_t k = 0; k < m; k++) {
      // 12·t0 ≡ −start and 12·t1 ≡ 1 − start (mod r). With a = −start mod r,
      // a + c·r is a multiple of 12 for c ≡ −a·r (mod 12) (r is its own
      // inverse mod 12), and (a + c·r)/12 < r is the root: no product of two
      // residues, so no wider arithmetic.
      const uint64_t r = primes[b + k], s = uint64_t(res[k]);
      const uint64_t a0 = s == 0 ? 0 : r - s;
      const uint64_t a1 = a0 + 1 == r ? 0 : a0 + 1;
      const uint64_t rm = r % 12;
      t0[b + k] = uint32_t((a0 + ((12 - a0 % 12) * rm % 12) * r) / 12);
      t1[b + k] = uint32_t((a1 + ((12 - a1 % 12) * rm % 12) * r) / 12);
    }
  }
}

}  // namespace powprime::bignum
