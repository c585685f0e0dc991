// Variable time, for public numbers only (see limbs.h).
// Montgomery arithmetic modulo an odd n of up to kMaxLimbs limbs, on one
// bignum kernel's products (kernel.h). Values in the Montgomery domain are
// a·R mod n with R = 2^(64·width()). modexp and pow2 take and return plain
// numbers, running the kernel's own whole exponentiation where it has one.
#pragma once
#include <vector>

#include "../verify.h"
#include "kernel.h"
#include "kernel_in_force.h"
#include "limbs.h"

namespace powprime::bignum {

class Mont {
 public:
  // n odd and greater than 1, of `size` words (leading zero words allowed).
  explicit Mont(const u64* n, int size, const BignumKernel& kernel = kernel_in_force());

  // The modulus's words without leading zero words: the number's size.
  int size() const { return size_; }
  // The words of every value this context takes and returns (modulus() included):
  // size() rounded up to the kernel's padding. Not the number's size.
  int width() const { return width_; }
  const BignumKernel& kernel() const { return kernel_; }
  const u64* modulus() const { return mod_.data(); }
  // R mod n: the Montgomery form of 1.
  const u64* one() const { return one_.data(); }

  void mul(u64* r, const u64* a, const u64* b) const {
    POWPRIME_CHECK(below_n(a) && below_n(b));
    mul_(r, a, b, mod_.data(), n0_, width_);
  }
  void sqr(u64* r, const u64* a) const {
    POWPRIME_CHECK(below_n(a));
    if (sqr_)
      sqr_(r, a, mod_.data(), n0_, width_);
    else
      mul_(r, a, a, mod_.data(), n0_, width_);
  }
  void to_mont(u64* r, const u64* a) const {  // a < n
    POWPRIME_CHECK(plain(a));
    mul(r, a, r2_.data());
  }
  void from_mont(u64* r, const u64* a) const {
    mul(r, a, unit_.data());
    POWPRIME_CHECK(plain(r));
  }

  void add(u64* r, const u64* a, const u64* b) const;
  void sub(u64* r, const u64* a, const u64* b) const;
  void dbl(u64* r, const u64* a) const { add(r, a, a); }
  void half(u64* r, const u64* a) const;

  // Plain numbers: r = base^e mod n (base < n) and r = 2^e mod n.
  void modexp(u64* r, const u64* base, const u64* e, int e_limbs) const;
  void pow2(u64* r, const u64* e, int e_limbs) const;

 private:
  // The same in the Montgomery domain, on the kernel's products.
  void pow_mont(u64* r, const u64* base, const u64* e, int e_limbs) const;
  void pow2_mont(u64* r, const u64* e, int e_limbs) const;
  // What the POWPRIME_VERIFY build checks at each entry point (verify.h):
  // a value of width() words is below the modulus (so zero in the padding
  // too), and a plain one is zero above the number's size: the padded width
  // is the kernel's business, and a caller that lets it leak into a value
  // (a plain number read at width(), a buffer sized by size()) gets wrong
  // answers from it, not a crash.
  bool below_n(const u64* a) const { return cmp(a, mod_.data(), width_) < 0; }
  bool plain(const u64* a) const { return below_n(a) && is_zero(a + size_, width_ - size_); }
  // 2^(kernel's r2_exponent) mod n, the plain constant its whole exponentiation needs.
  std::vector<u64> kernel_r2() const;

  const BignumKernel& kernel_;
  int size_, width_;
  u64 n0_;  // −n^−1 mod 2^64
  // unit_: the plain 1, so from_mont is one product.
  std::vector<u64> mod_, one_, r2_, unit_;
  MulFn mul_;
  SqrFn sqr_;
};

}  // namespace powprime::bignum
