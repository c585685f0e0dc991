// 64-bit word arithmetic that C++ does not spell portably: 64×64 products,
// add/subtract with carry, a 192-bit column accumulator, and bit scans and
// counts. GCC and clang (Linux, macOS, MinGW) have `unsigned __int128`,
// __builtin_clzll, __builtin_ctz and __builtin_popcountll; MSVC has none of
// them and offers _umul128, __umulh, _addcarry_u64, _BitScanReverse64 and
// _BitScanForward instead (and a popcount here by shifts and masks). Every native
// file takes these from here, so that this one file decides per compiler.
// The GCC/clang forms are the expressions the kernels were written and
// measured with, so that they compile to the same code.
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

// The full product a·b: returns the low word, *hi the high one.
inline uint64_t mul_wide(uint64_t a, uint64_t b, uint64_t* hi) {
#if POWPRIME_HAS_INT128
  const unsigned __int128 p = (unsigned __int128)a * b;
  *hi = uint64_t(p >> 64);
  return uint64_t(p);
#else
  unsigned long long h;
  const uint64_t lo = _umul128(a, b, &h);
  *hi = h;
  return lo;
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

// a·b + c + d, which always fits in 128 bits: returns the low word, *hi the high one.
inline uint64_t mul_add_add(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t* hi) {
#if POWPRIME_HAS_INT128
  const unsigned __int128 p = (unsigned __int128)a * b + c + d;
  *hi = uint64_t(p >> 64);
  return uint64_t(p);
#else
  unsigned long long h;
  uint64_t lo = _umul128(a, b, &h);
  h += add_carry(lo, c, 0, &lo);
  h += add_carry(lo, d, 0, &lo);
  *hi = h;
  return lo;
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

// Trailing zero bits of a non-zero x.
inline int ctz32(uint32_t x) {
#if POWPRIME_HAS_INT128
  return __builtin_ctz(x);
#else
  unsigned long i;
  _BitScanForward(&i, x);
  return int(i);
#endif
}

// Trailing zero bits of a non-zero x.
inline int ctz64(uint64_t x) {
#if POWPRIME_HAS_INT128
  return __builtin_ctzll(x);
#else
  unsigned long i;
  _BitScanForward64(&i, x);
  return int(i);
#endif
}

// Set bits of x. The SWAR form for MSVC, whose __popcnt64 needs a CPU check.
inline int popcount64(uint64_t x) {
#if POWPRIME_HAS_INT128
  return __builtin_popcountll(x);
#else
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return int((x * 0x0101010101010101ull) >> 56);
#endif
}

// A 192-bit accumulator for product scanning (the portable Montgomery
// kernel's columns): word products added in, one column added in twice,
// and shifted down a word at a time. Sums stay below 2^192 by construction there.
struct Column {
#if POWPRIME_HAS_INT128
  unsigned __int128 lo = 0;  // the low 128 bits
#else
  uint64_t lo0 = 0, lo1 = 0;
#endif
  uint64_t hi = 0;

  // += a·b
  void mac(uint64_t a, uint64_t b) {
#if POWPRIME_HAS_INT128
    const unsigned __int128 p = (unsigned __int128)a * b;
    lo += p;
    hi += lo < p;
#else
    uint64_t ph;
    const uint64_t pl = mul_wide(a, b, &ph);
    const uint64_t c = add_carry(lo1, ph, add_carry(lo0, pl, 0, &lo0), &lo1);
    hi += c;
#endif
  }
  // += 2·c
  void add_twice(const Column& c) {
#if POWPRIME_HAS_INT128
    const uint64_t chi = (c.hi << 1) | uint64_t(c.lo >> 127);
    const unsigned __int128 clo = c.lo << 1;
    lo += clo;
    hi += chi + (lo < clo);
#else
    const uint64_t t0 = c.lo0 << 1, t1 = (c.lo1 << 1) | (c.lo0 >> 63), th = (c.hi << 1) | (c.lo1 >> 63);
    hi += th + add_carry(lo1, t1, add_carry(lo0, t0, 0, &lo0), &lo1);
#endif
  }
  // The lowest word.
  uint64_t low() const {
#if POWPRIME_HAS_INT128
    return uint64_t(lo);
#else
    return lo0;
#endif
  }
  // >>= 64
  void shift() {
#if POWPRIME_HAS_INT128
    lo = (lo >> 64) | ((unsigned __int128)hi << 64);
#else
    lo0 = lo1;
    lo1 = hi;
#endif
    hi = 0;
  }
};

}  // namespace powprime
