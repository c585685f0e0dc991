// Variable time, for public numbers only (see limbs.h).
// Montgomery arithmetic modulo an odd n of up to kMaxLimbs limbs. Values in
// the Montgomery domain are a·R mod n with R = 2^(64·limbs). Multiplication
// and squaring scan products column by column with the reduction folded in;
// squaring computes each cross product once and doubles the column. Common widths
// (512…3072 bits) get compile-time-width instantiations; wider ones run the
// generic loops, which measured as fast there.
#pragma once
#include <vector>

#include "limbs.h"

namespace powprime::bignum {

// The fastest multiplication kernel this process may use: tests step it down
// to check every kernel against the TS backend on one machine.
enum class MulKernel { portable = 0, adx = 1, ifma = 2 };
// The best kernel this CPU runs.
MulKernel best_bignum_kernel();
// Caps the kernels used from now on (at most the best one); returns the cap in force.
MulKernel set_bignum_kernel(MulKernel cap);
MulKernel bignum_kernel();
const char* bignum_kernel_name(MulKernel k);

class Mont {
 public:
  // n must be odd and greater than 1; its width is n.size() after trimming.
  explicit Mont(const u64* n, int limbs);

  // Width of every value in this context (n's words, maybe widened; see the constructor).
  int limbs() const { return n_; }
  const u64* modulus() const { return mod_.data(); }
  // R mod n: the Montgomery form of 1.
  const u64* one() const { return one_.data(); }

  void mul(u64* r, const u64* a, const u64* b) const { mul_(r, a, b, mod_.data(), n0_, n_); }
  void sqr(u64* r, const u64* a) const {
    if (sqr_)
      sqr_(r, a, mod_.data(), n0_, n_);
    else
      mul_(r, a, a, mod_.data(), n0_, n_);
  }
  void to_mont(u64* r, const u64* a) const { mul(r, a, r2_.data()); }  // a < n
  void from_mont(u64* r, const u64* a) const;

  void add(u64* r, const u64* a, const u64* b) const;
  void sub(u64* r, const u64* a, const u64* b) const;
  void dbl(u64* r, const u64* a) const;
  void half(u64* r, const u64* a) const;

  // r = base^e (all in the Montgomery domain), sliding window.
  void pow(u64* r, const u64* base, const u64* e, int e_limbs) const;
  // r = 2^e in the Montgomery domain: squarings and doublings only.
  void pow2(u64* r, const u64* e, int e_limbs) const;
  // Whether pow and pow2 run on the AVX-512 IFMA kernel for this modulus.
  bool uses_ifma() const;
  // The R^2 the IFMA kernel needs for this modulus (plain 2^k mod n).
  void ifma_r2(u64* out) const;

 private:
  using MulFn = void (*)(u64*, const u64*, const u64*, const u64*, u64, int);
  using SqrFn = void (*)(u64*, const u64*, const u64*, u64, int);
  void pow_words(u64* r, const u64* base, const u64* e, int e_limbs) const;
  void pow2_words(u64* r, const u64* e, int e_limbs) const;

  int n_;
  u64 n0_;  // -n^-1 mod 2^64
  std::vector<u64> mod_, one_, r2_;
  MulFn mul_;
  SqrFn sqr_;
};

}  // namespace powprime::bignum
