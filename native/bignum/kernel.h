// One bignum kernel: the slot each kernel file fills and a row of the table
// in dispatch.cc points to. Kernels take and return plain numbers; the Montgomery
// form, the radix and the padding they work in stay inside them (and inside
// Mont, which runs their products).
//
// Variable time, for public numbers only (see limbs.h).
#pragma once
#include "limbs.h"

namespace powprime::bignum {

// r = a·b·R^−1 mod n at a padded width: r, a, b and n of `width` words,
// R = 2^(64·width), a, b < n, n0 = −n^−1 mod 2^64. r may alias a or b.
using MulFn = void (*)(u64* r, const u64* a, const u64* b, const u64* n, u64 n0, int width);
// r = a²·R^−1 mod n under the same terms.
using SqrFn = void (*)(u64* r, const u64* a, const u64* n, u64 n0, int width);
struct Products {
  MulFn mul;
  SqrFn sqr;  // null: squares go through mul (faster at this width)
};

// r = base^e mod n and r = 2^e mod n on plain numbers: n odd, of `size` words
// without leading zero words, base < n; r gets `size` words. r2 is the plain
// number 2^r2_exponent(bits of n) mod n, which the caller computes on the
// 64-bit products (the kernel's own domain has no cheap way to reduce a power
// of two before it has that number).
using ModexpFn = void (*)(u64* r, const u64* base, const u64* e, int e_limbs, const u64* n, int size, const u64* r2);
using Pow2Fn = void (*)(u64* r, const u64* e, int e_limbs, const u64* n, int size, const u64* r2);
// out[k] = (2^(n[k]−1) ≡ 1 mod n[k]) for count ≤ fermat_lanes odd numbers of
// `limbs` words (zero-padded), each of at most fermat_max_bits bits.
using FermatFn = void (*)(const u64* const* n, int count, int limbs, bool* out);

struct BignumKernel {
  // How setBignumKernel() and backendInfo().bignumKernels name it.
  const char* id;
  // What backendInfo().bignum says while it is in force.
  const char* name;

  // Montgomery products. They take widths that are multiples of `pad` words:
  // a modulus of `size` words is worked on at width pad_width(size). That
  // width is the kernel's business; callers keep the number's size apart.
  int pad;
  Products (*products)(int width);

  // Optional whole exponentiation, for moduli of exp_min_bits..exp_max_bits
  // bits (null: the sliding window over the products, at every size).
  int exp_min_bits, exp_max_bits;
  int (*r2_exponent)(int bits);
  ModexpFn modexp;
  Pow2Fn pow2;

  // Optional batched base-2 Fermat test, fermat_lanes numbers at once (null:
  // one number at a time through pow2).
  int fermat_lanes, fermat_max_bits;
  FermatFn fermat;

  int pad_width(int size) const { return (size + pad - 1) / pad * pad; }
  bool takes_exp(int bits) const { return modexp && bits >= exp_min_bits && bits <= exp_max_bits; }
  // How many numbers of this many bits the Fermat test runs together.
  int lanes_for(int bits) const { return fermat && bits <= fermat_max_bits ? fermat_lanes : 1; }
};

}  // namespace powprime::bignum
