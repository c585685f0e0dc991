#include "montgomery.h"

#include "sliding_window.h"

namespace powprime::bignum {

Mont::Mont(const u64* n, int size, const BignumKernel& kernel)
    : kernel_(kernel), size_(trimmed(n, size)), width_(kernel.pad_width(size_)) {
  // Montgomery arithmetic only needs R = 2^(64·width) > n, so the zero words
  // a padded width puts on top are harmless.
  POWPRIME_CHECK(width_ <= kMaxLimbs);  // the widest every kernel's products take
  mod_.assign(size_t(width_), 0);
  std::memcpy(mod_.data(), n, sizeof(u64) * size_t(size_));
  n0_ = neg_inverse_mod_2_64(mod_[0]);
  const Products p = kernel.products(width_);
  mul_ = p.mul;
  sqr_ = p.sqr;
  unit_.assign(size_t(width_), 0);
  unit_[0] = 1;
  // R mod n: from 2^(bits−1) < n, double up to 2^(64·width). R^2 mod n is then
  // the Montgomery form of 2^(64·width): a short pow2, not 64·width more doublings.
  const int bits = bit_length(mod_.data(), width_);
  one_.assign(size_t(width_), 0);
  one_[size_t((bits - 1) / 64)] = u64(1) << ((bits - 1) % 64);
  for (int i = bits - 1; i < 64 * width_; i++) dbl(one_.data(), one_.data());
  r2_.assign(size_t(width_), 0);
  const u64 e = u64(64) * u64(width_);
  pow2_mont(r2_.data(), &e, 1);
}

// In place, so r may alias a or b, and no scratch is needed: the sum's carry
// word and the comparison decide the subtraction.
void Mont::add(u64* r, const u64* a, const u64* b) const {
  POWPRIME_CHECK(below_n(a) && below_n(b));
  const u64 c = bignum::add(r, a, b, width_);
  if (c || cmp(r, mod_.data(), width_) >= 0) bignum::sub(r, r, mod_.data(), width_);
}

void Mont::sub(u64* r, const u64* a, const u64* b) const {
  POWPRIME_CHECK(below_n(a) && below_n(b));
  if (bignum::sub(r, a, b, width_)) bignum::add(r, r, mod_.data(), width_);
}

void Mont::half(u64* r, const u64* a) const {
  POWPRIME_CHECK(below_n(a));
  if (a[0] & 1) {
    const u64 c = bignum::add(r, a, mod_.data(), width_);
    shr1(r, r, width_, c);
  } else {
    shr1(r, a, width_);
  }
}

void Mont::pow_mont(u64* r, const u64* base, const u64* e, int e_limbs) const {
  const int bits = bit_length(e, e_limbs);
  if (bits == 0) {
    std::memcpy(r, one(), sizeof(u64) * size_t(width_));
    return;
  }
  const int w = window_bits(bits);
  const size_t n = size_t(width_);
  // Odd powers base^1, base^3, …, base^(2^w − 1), then base² and the accumulator.
  const size_t odd = size_t(1) << (w - 1);
  std::vector<u64> scratch(n * (odd + 2));
  u64* table = scratch.data();
  u64* sq = table + odd * n;
  u64* acc = sq + n;
  std::memcpy(table, base, sizeof(u64) * n);
  sqr(sq, base);
  for (size_t i = 1; i < odd; i++) mul(table + i * n, table + (i - 1) * n, sq);
  sliding_window(
      e, bits, w, [&](unsigned k) { std::memcpy(acc, table + k * n, sizeof(u64) * n); }, [&] { sqr(acc, acc); },
      [&](unsigned k) { mul(acc, acc, table + k * n); });
  std::memcpy(r, acc, sizeof(u64) * n);
}

// r must not alias e.
void Mont::pow2_mont(u64* r, const u64* e, int e_limbs) const {
  const int bits = bit_length(e, e_limbs);
  std::memcpy(r, one(), sizeof(u64) * size_t(width_));
  if (bits > 0) dbl(r, r);
  for (int i = bits - 2; i >= 0; i--) {
    sqr(r, r);
    if (bit(e, i)) dbl(r, r);
  }
}

std::vector<u64> Mont::kernel_r2() const {
  const u64 e = u64(kernel_.r2_exponent(bit_length(mod_.data(), width_)));
  std::vector<u64> t(static_cast<size_t>(width_)), out(static_cast<size_t>(width_));
  pow2_mont(t.data(), &e, 1);
  from_mont(out.data(), t.data());
  return out;
}

void Mont::modexp(u64* r, const u64* base, const u64* e, int e_limbs) const {
  POWPRIME_CHECK(plain(base));
  if (kernel_.takes_exp(bit_length(mod_.data(), width_))) {
    const std::vector<u64> r2 = kernel_r2();
    kernel_.modexp(r, base, e, e_limbs, mod_.data(), size_, r2.data());
    std::fill(r + size_, r + width_, 0);
    POWPRIME_CHECK(plain(r));
    return;
  }
  std::vector<u64> t(static_cast<size_t>(width_));
  to_mont(t.data(), base);
  pow_mont(t.data(), t.data(), e, e_limbs);
  from_mont(r, t.data());
}

void Mont::pow2(u64* r, const u64* e, int e_limbs) const {
  if (kernel_.takes_exp(bit_length(mod_.data(), width_))) {
    const std::vector<u64> r2 = kernel_r2();
    kernel_.pow2(r, e, e_limbs, mod_.data(), size_, r2.data());
    std::fill(r + size_, r + width_, 0);
    POWPRIME_CHECK(plain(r));
    return;
  }
  std::vector<u64> t(static_cast<size_t>(width_));
  pow2_mont(t.data(), e, e_limbs);
  from_mont(r, t.data());
}

}  // namespace powprime::bignum
