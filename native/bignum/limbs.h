// Little-endian arrays of 64-bit limbs: the few whole-number operations the
// Montgomery core and the sieve need. Widths are passed explicitly; nothing
// here allocates.
//
// VARIABLE TIME, FOR PUBLIC NUMBERS ONLY. The whole bignum core (this file,
// the Montgomery kernels, exponentiation, primality tests, sieve) branches
// and indexes memory on the values it works on, and its windows, final
// subtractions and early exits leak them through timing and caches. That is
// right for testing and searching public candidates (proof of work, public
// safe primes); never use it on secrets such as private exponents or keys.
#pragma once
#include <cstdint>
#include <cstring>

#include "wide_arith.h"

namespace powprime::bignum {

using u64 = uint64_t;

// Largest operand the native core takes: 32768 bits. Larger numbers are
// handled by the TypeScript backend.
constexpr int kMaxLimbs = 512;

inline int cmp(const u64* a, const u64* b, int n) {
  for (int i = n - 1; i >= 0; i--)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

inline bool is_zero(const u64* a, int n) {
  for (int i = 0; i < n; i++)
    if (a[i]) return false;
  return true;
}

inline bool equal(const u64* a, const u64* b, int n) { return std::memcmp(a, b, sizeof(u64) * n) == 0; }

inline u64 add(u64* r, const u64* a, const u64* b, int n) {
  u64 c = 0;
  for (int i = 0; i < n; i++) c = add_carry(a[i], b[i], c, &r[i]);
  return c;
}

inline u64 sub(u64* r, const u64* a, const u64* b, int n) {
  u64 borrow = 0;
  for (int i = 0; i < n; i++) borrow = sub_borrow(a[i], b[i], borrow, &r[i]);
  return borrow;
}

// r = a + v for a small v; returns the carry out.
inline u64 add_small(u64* r, const u64* a, u64 v, int n) {
  u64 c = v;
  for (int i = 0; i < n; i++) c = add_carry(a[i], c, 0, &r[i]);
  return c;
}

inline void sub_small(u64* r, const u64* a, u64 v, int n) {
  u64 borrow = v;
  for (int i = 0; i < n; i++) borrow = sub_borrow(a[i], borrow, 0, &r[i]);
}

inline int bit_length(const u64* a, int n) {
  for (int i = n - 1; i >= 0; i--)
    if (a[i]) return 64 * i + 64 - clz64(a[i]);
  return 0;
}

inline bool bit(const u64* a, int i) { return (a[i >> 6] >> (i & 63)) & 1; }

inline void shr1(u64* r, const u64* a, int n, u64 top = 0) {
  for (int i = 0; i < n; i++) {
    const u64 hi = i + 1 < n ? a[i + 1] : top;
    r[i] = (a[i] >> 1) | (hi << 63);
  }
}

// a mod d for a small d (d < 2^32), by 32-bit halves so no 128-bit division is needed.
inline uint32_t mod_small(const u64* a, int n, uint32_t d) {
  u64 acc = 0;
  for (int i = n - 1; i >= 0; i--) {
    acc = ((acc << 32) | (a[i] >> 32)) % d;
    acc = ((acc << 32) | (a[i] & 0xffffffffu)) % d;
  }
  return uint32_t(acc);
}

// The last step of a Montgomery product: r = t − n when t (len words plus a
// top word of 0 or 1) is at least n, else r = t.
inline void final_sub(u64* r, const u64* t, u64 top, const u64* n, int len) {
  if (top || cmp(t, n, len) >= 0)
    sub(r, t, n, len);
  else
    std::memcpy(r, t, sizeof(u64) * len);
}

// −n^−1 mod 2^64 for odd n0 (Newton's iteration; each step doubles the correct bits).
inline u64 neg_inverse_mod_2_64(u64 n0) {
  u64 inv = 1;
  for (int i = 0; i < 7; i++) inv *= 2 - n0 * inv;
  return u64(0) - inv;
}

// Number of limbs without leading zero limbs (at least 1).
inline int trimmed(const u64* a, int n) {
  while (n > 1 && a[n - 1] == 0) n--;
  return n;
}

}  // namespace powprime::bignum
