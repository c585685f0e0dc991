// Modular exponentiation on AVX-512 IFMA (vpmadd52luq/huq): numbers in radix
// 2^52, eight digits per 512-bit register, almost-Montgomery products that
// stay below 2n. The "ifma" kernel: these exponentiations for moduli of
// kIfmaMinBits..kIfmaMaxBits bits, the MULX/ADX products elsewhere (Lucas
// steps, narrower and wider moduli), and base-2 Fermat tests of up to sixteen
// numbers at a time in SIMD lanes (fermat_vertical.h).
#include "digits.h"
#include "fermat_vertical.h"
#include "kernel.h"
#include "mont_adx.h"
#include "sliding_window.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12's AVX-512 headers implement casts and alignr with a deliberately
// undefined operand, which -Wuninitialized reports; nothing here reads it.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <vector>

#define POWPRIME_IFMA __attribute__((target("avx512f,avx512ifma")))

namespace powprime::bignum {
namespace {

constexpr u64 kMask = kDigitMask;
constexpr int kMaxDigits = 80;
// Widest modulus: R = 2^(52·kMaxDigits) ≥ 4n.
constexpr int kIfmaMaxBits = 52 * kMaxDigits - 2;
// One IFMA product waits on a scalar step per digit (the Montgomery factor m),
// so alone it beats the ADX kernel only for wide moduli (measured: 1024-bit
// modexp 0.32 ms either way, 2048-bit 1.07 vs 1.9 ms). The sieve's Fermat
// tests, the bulk of a search, use IFMA at every width through the batched
// test, one number a lane.
constexpr int kIfmaMinBits = 1100;

// Registers needed for a modulus of `bits` bits: R = 2^(52·8·Z) ≥ 4n.
int zmm_count(int bits) {
  for (int z : {2, 3, 4, 5, 6, 8, 10})
    if (52 * 8 * z >= bits + 2) return z;
  return 0;
}

// The operands of one exponentiation, in digits (8·Z of them).
struct Ctx {
  int z;
  int digits;
  u64 k0;  // −n^−1 mod 2^52
  alignas(64) u64 n[kMaxDigits];
  alignas(64) u64 two_n[kMaxDigits];
};

// out = a·b·2^(−52·digits) mod n, almost: out < 2n for a, b < 2n. Digits of
// a and b below 2^52; out normalised the same way. Operand scanning: per
// digit of a, add a_i·b, then m·n with m making the lowest digit zero, and
// shift down one digit (the alignr chain).
template <int Z>
POWPRIME_IFMA void amm(u64* out, const u64* a, const u64* b, const Ctx& c) {
  constexpr int L = 8 * Z;
  __m512i acc[Z];
  for (int z = 0; z < Z; z++) acc[z] = _mm512_setzero_si512();
  const __m512i zero = _mm512_setzero_si512();
  for (int i = 0; i < L; i++) {
    const __m512i ai = _mm512_set1_epi64((long long)a[i]);
    for (int z = 0; z < Z; z++) acc[z] = _mm512_madd52lo_epu64(acc[z], ai, _mm512_load_si512(b + 8 * z));
    const u64 lane0 = u64(_mm_cvtsi128_si64(_mm512_castsi512_si128(acc[0])));
    const u64 m = (lane0 * c.k0) & kMask;
    const __m512i mi = _mm512_set1_epi64((long long)m);
    for (int z = 0; z < Z; z++) acc[z] = _mm512_madd52lo_epu64(acc[z], mi, _mm512_load_si512(c.n + 8 * z));
    const u64 carry = (lane0 + ((m * c.n[0]) & kMask)) >> 52;
    for (int z = 0; z + 1 < Z; z++) acc[z] = _mm512_alignr_epi64(acc[z + 1], acc[z], 1);
    acc[Z - 1] = _mm512_alignr_epi64(zero, acc[Z - 1], 1);
    acc[0] = _mm512_add_epi64(acc[0], _mm512_zextsi128_si512(_mm_cvtsi64_si128((long long)carry)));
    for (int z = 0; z < Z; z++) acc[z] = _mm512_madd52hi_epu64(acc[z], ai, _mm512_load_si512(b + 8 * z));
    for (int z = 0; z < Z; z++) acc[z] = _mm512_madd52hi_epu64(acc[z], mi, _mm512_load_si512(c.n + 8 * z));
  }
  alignas(64) u64 t[L];
  for (int z = 0; z < Z; z++) _mm512_store_si512(t + 8 * z, acc[z]);
  u64 c2 = 0;
  for (int j = 0; j < L; j++) {
    const u64 v = t[j] + c2;
    out[j] = v & kMask;
    c2 = v >> 52;
  }
}

using AmmFn = void (*)(u64*, const u64*, const u64*, const Ctx&);

AmmFn amm_for(int z) {
  switch (z) {
    case 2:
      return amm<2>;
    case 3:
      return amm<3>;
    case 4:
      return amm<4>;
    case 5:
      return amm<5>;
    case 6:
      return amm<6>;
    case 8:
      return amm<8>;
    case 10:
      return amm<10>;
    default:
      return nullptr;
  }
}

int cmp_digits(const u64* a, const u64* b, int digits) {
  for (int k = digits - 1; k >= 0; k--)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

// a −= b on normalised digits (a ≥ b).
void sub_digits(u64* a, const u64* b, int digits) {
  u64 borrow = 0;
  for (int k = 0; k < digits; k++) {
    const u64 v = a[k] - b[k] - borrow;
    borrow = v >> 63;
    a[k] = v & kMask;
  }
}

void setup(Ctx& c, const u64* n, int limbs) {
  const int bits = bit_length(n, limbs);
  c.z = zmm_count(bits);
  c.digits = 8 * c.z;
  to_digits<kIfmaDigitBits>(c.n, c.digits, n, limbs);
  c.k0 = neg_inverse_mod_2_64(n[0]) & kMask;
  u64 carry = 0;
  for (int k = 0; k < c.digits; k++) {
    const u64 v = (c.n[k] << 1) + carry;
    c.two_n[k] = v & kMask;
    carry = v >> 52;
  }
}

// Back from the Montgomery domain (x·R^−1, at most n) to a plain number below n.
void finish(u64* r, const u64* x, const Ctx& c, AmmFn mul, int limbs) {
  alignas(64) u64 one[kMaxDigits] = {1};
  alignas(64) u64 y[kMaxDigits];
  mul(y, x, one, c);
  if (cmp_digits(y, c.n, c.digits) >= 0) sub_digits(y, c.n, c.digits);
  from_digits<kIfmaDigitBits>(r, limbs, y, c.digits);
}

int ifma_r2_exponent(int bits) { return 2 * 52 * 8 * zmm_count(bits); }

void ifma_modexp(u64* r, const u64* base, const u64* e, int e_limbs, const u64* n, int limbs, const u64* r2) {
  Ctx c;
  setup(c, n, limbs);
  const AmmFn mul = amm_for(c.z);
  const int d = c.digits;
  alignas(64) u64 x[kMaxDigits] = {}, r2d[kMaxDigits] = {}, acc[kMaxDigits] = {};
  to_digits<kIfmaDigitBits>(x, d, base, limbs);
  to_digits<kIfmaDigitBits>(r2d, d, r2, limbs);
  const int bits = bit_length(e, e_limbs);
  if (bits == 0) {
    std::memset(r, 0, sizeof(u64) * size_t(limbs));
    r[0] = 1;
    return;
  }
  mul(x, x, r2d, c);  // x·R mod n (< 2n)
  const int w = window_bits(bits);
  std::vector<u64, std::allocator<u64>> storage(size_t(d) * ((size_t(1) << (w - 1)) + 1) + 8);
  // 64-byte aligned table of odd powers x, x^3, …
  u64* table = reinterpret_cast<u64*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) & ~uintptr_t(63));
  alignas(64) u64 sq[kMaxDigits];
  std::memcpy(table, x, sizeof(u64) * size_t(d));
  mul(sq, x, x, c);
  for (int i = 1; i < (1 << (w - 1)); i++) mul(table + size_t(i) * d, table + size_t(i - 1) * d, sq, c);
  const size_t dd = size_t(d);
  sliding_window(
      e, bits, w, [&](unsigned k) { std::memcpy(acc, table + k * dd, sizeof(u64) * dd); },
      [&] { mul(acc, acc, acc, c); }, [&](unsigned k) { mul(acc, acc, table + k * dd, c); });
  finish(r, acc, c, mul, limbs);
}

void ifma_pow2(u64* r, const u64* e, int e_limbs, const u64* n, int limbs, const u64* r2) {
  Ctx c;
  setup(c, n, limbs);
  const AmmFn mul = amm_for(c.z);
  const int d = c.digits;
  const int bits = bit_length(e, e_limbs);
  if (bits == 0) {
    std::memset(r, 0, sizeof(u64) * size_t(limbs));
    r[0] = 1;
    return;
  }
  alignas(64) u64 acc[kMaxDigits] = {2}, r2d[kMaxDigits] = {};
  to_digits<kIfmaDigitBits>(r2d, d, r2, limbs);
  mul(acc, acc, r2d, c);  // 2·R mod n (< 2n)
  for (int i = bits - 2; i >= 0; i--) {
    mul(acc, acc, acc, c);
    if (bit(e, i)) {
      // Doubling stays below 2n by subtracting 2n when it reaches it.
      u64 carry = 0;
      for (int k = 0; k < d; k++) {
        const u64 v = (acc[k] << 1) + carry;
        acc[k] = v & kMask;
        carry = v >> 52;
      }
      if (cmp_digits(acc, c.two_n, d) >= 0) sub_digits(acc, c.two_n, d);
    }
  }
  finish(r, acc, c, mul, limbs);
}

Products ifma_products(int) { return {mont_mul_adx, mont_sqr_adx}; }

constexpr BignumKernel kIfma = {
    "ifma",           "avx512-ifma x8 + mulx/adx",
    /*pad=*/4,        ifma_products,
    kIfmaMinBits,     kIfmaMaxBits,
    ifma_r2_exponent, ifma_modexp,
    ifma_pow2,        kVerticalLanes,
    kVerticalMaxBits, fermat2_vertical,
};

}  // namespace

const BignumKernel* ifma_kernel() { return &kIfma; }

}  // namespace powprime::bignum

#else
namespace powprime::bignum {
const BignumKernel* ifma_kernel() { return nullptr; }
}  // namespace powprime::bignum
#endif
