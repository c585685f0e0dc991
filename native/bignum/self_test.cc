#include "self_test.h"

#include <vector>

#include "montgomery.h"
#include "primality.h"

namespace powprime::bignum {

namespace {

// A Mersenne number 2^p − 1 as `words` words (zeros above).
std::vector<u64> mersenne(int p, int words) {
  std::vector<u64> m(size_t(words), 0);
  for (int i = 0; i < p; i++) m[size_t(i / 64)] |= u64(1) << (i % 64);
  return m;
}

}  // namespace

// Known answers, on every path the kernel has (products at padded and
// unpadded widths, the whole exponentiation where it takes the size, the
// batched Fermat test), so a kernel the build or the CPU gets wrong is
// refused instead of giving wrong verdicts. A few ms in all, once per process.
bool self_test(const BignumKernel& k) {
  // For the Mersenne primes M = 2^p − 1: a^M ≡ a (mod M) (Fermat), and
  // 2^(p + 37) ≡ 2^37, since 2^p ≡ 1. 61 bits fits one word (padded up to
  // the kernel's width), 521 nine; 1279 lies in the IFMA exponentiation's
  // range, and is tried only where a kernel has one (it costs a millisecond).
  for (int p : {61, 89, 521, 1279}) {
    if (p == 1279 && !k.takes_exp(p)) continue;
    const int words = (p + 63) / 64;
    const std::vector<u64> m = mersenne(p, words);
    const Mont mont(m.data(), words, k);
    const int w = mont.width();
    std::vector<u64> base(size_t(w), 0), r(static_cast<size_t>(w), 0);
    for (int i = 0; i < words; i++) base[size_t(i)] = 0x0123456789abcdefull * u64(2 * i + 3);
    base[size_t(words - 1)] &= (u64(1) << ((p - 1) % 64)) - 1;  // below M
    mont.modexp(r.data(), base.data(), m.data(), words);
    if (!equal(r.data(), base.data(), w)) return false;
    const u64 e = u64(p) + 37;
    mont.pow2(r.data(), &e, 1);
    std::vector<u64> want(size_t(w), 0);
    want[0] = u64(1) << 37;
    if (!equal(r.data(), want.data(), w)) return false;
  }
  // Small numbers, whose padded width is furthest from their size: BPSW
  // alone (no trial division) against trial division here.
  for (u64 n = 3; n < 200; n += 2) {
    bool prime = true;
    for (u64 d = 3; d * d <= n; d += 2) prime = prime && n % d != 0;
    if (is_probable_prime(&n, 1, 0, /*trial=*/false, k) != prime) return false;
  }
  if (k.fermat) {
    // M_521 and M_607 prime; 341 = 11·31 a base-2 pseudoprime; 9 and 3·M_521 fail.
    const int words = 10;
    std::vector<u64> a = mersenne(521, words), b = mersenne(607, words), c(words, 0), d(words, 0), e(words, 0);
    c[0] = 341;
    d[0] = 9;
    add(e.data(), a.data(), a.data(), words);
    add(e.data(), e.data(), a.data(), words);
    // Ten, so that a kernel testing more than eight at once runs its wider path too.
    const u64* ns[] = {a.data(), c.data(), d.data(), e.data(), b.data(),
                       b.data(), e.data(), d.data(), c.data(), a.data()};
    const bool want[] = {true, true, false, false, true, true, false, false, true, true};
    constexpr int kCount = 10;
    bool out[kCount];
    for (int from = 0; from < kCount; from += k.fermat_lanes) {
      const int count = kCount - from < k.fermat_lanes ? kCount - from : k.fermat_lanes;
      k.fermat(ns + from, count, words, out + from);
    }
    for (int i = 0; i < kCount; i++)
      if (out[i] != want[i]) return false;
  }
  return true;
}

}  // namespace powprime::bignum
