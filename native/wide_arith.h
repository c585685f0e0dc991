// 64-bit word arithmetic that C++ does not spell portably: the high half of a
// 64×64 product, add/subtract with carry, and a bit scan. GCC and clang
// (Linux, macOS, MinGW) have `unsigned __int128` and __builtin_clzll; MSVC has
// neither and offers __umulh, _addcarry_u64 and _BitScanReverse64 instead.
// limbs.h and small_primes.h take these from here, so that one file decides
// per compiler; the Montgomery kernels still spell `unsigned __int128`.
#pragma once
#include <cstdint>

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#define POWPRIME_HAS_INT128 0
#else
#define POWPRIME_HAS_INT128 1
#endif

namespace powprime {

// floor(a·b / 2^64).
inline uint64_t mul_high(uint64_t a, uint64_t b) {
#if POWPRIME_HAS_INT128
  return uint64_t((unsigned __int128)a * b >> 64);
#else
  return __umulh(a, b);
#endif
}

// *out = a + b + carry (carry 0 or 1); returns the carry out.
inline uint64_t add_carry(uint64_t a, uint64_t b, uint64_t carry, uint64_t* out) {
#if POWPRIME_HAS_INT128
  // GCC turns this into add/adc; the same shape the limb loops always had.
  const unsigned __int128 s = (unsigned __int128)a + b + carry;
  *out = uint64_t(s);
  return uint64_t(s >> 64);
#else
  unsigned long long r;
  const unsigned char c = _addcarry_u64((unsigned char)carry, a, b, &r);
  *out = r;
  return c;
#endif
}

// *out = a − b − borrow (borrow 0 or 1); returns the borrow out.
inline uint64_t sub_borrow(uint64_t a, uint64_t b, uint64_t borrow, uint64_t* out) {
#if POWPRIME_HAS_INT128
  const unsigned __int128 d = (unsigned __int128)a - b - borrow;
  *out = uint64_t(d);
  return uint64_t(d >> 64) & 1;
#else
  unsigned long long r;
  const unsigned char c = _subborrow_u64((unsigned char)borrow, a, b, &r);
  *out = r;
  return c;
#endif
}

// Leading zero bits of a non-zero x.
inline int clz64(uint64_t x) {
#if POWPRIME_HAS_INT128
  return __builtin_clzll(x);
#else
  unsigned long i;
  _BitScanReverse64(&i, x);
  return 63 - int(i);
#endif
}

}  // namespace powprime
