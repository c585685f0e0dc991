#include "safe_prime_sieve.h"

#include <algorithm>

#include "montgomery.h"
#include "primality.h"
#include "small_primes.h"

namespace powprime::bignum {

SafePrimeSieve::SafePrimeSieve(const u64* start, int limbs, uint32_t sieve_limit, int rounds)
    : start_(start, start + limbs), limbs_(limbs), rounds_(rounds) {
  const std::vector<uint32_t>& ps = sieve_primes();
  const std::vector<uint32_t>& inv = sieve_inverses_of_12();
  nprimes_ = size_t(std::lower_bound(ps.begin(), ps.end(), sieve_limit) - ps.begin());
  t0_.resize(nprimes_);
  t1_.resize(nprimes_);
  for (size_t k = 0; k < nprimes_; k++) {
    const uint64_t r = ps[k];
    const uint64_t res = mod_small(start, limbs, uint32_t(r));
    t0_[k] = uint32_t((r - res) % r * inv[k] % r);
    t1_[k] = uint32_t((1 + r - res) % r * inv[k] % r);
  }
}

bool SafePrimeSieve::is_safe_candidate(const u64* p) const {
  const int n = trimmed(p, limbs_);
  u64 q[kMaxLimbs];
  shr1(q, p, n);
  const Mont mq(q, n);
  if (!fermat_base2(mq)) return false;
  const Mont mp(p, n);
  if (!fermat_base2(mp)) return false;
  // q has no factor below the sieve limit, so trial division would find nothing.
  return is_probable_prime(q, n, rounds_, /*trial=*/false);
}

int64_t SafePrimeSieve::search(uint64_t j0, uint64_t j1, SieveStats& stats) {
  if (j1 <= j0) return -1;
  const uint64_t len = j1 - j0;
  marks_.assign(len, 0);
  const std::vector<uint32_t>& ps = sieve_primes();
  uint8_t* marks = marks_.data();
  for (size_t k = 0; k < nprimes_; k++) {
    const uint64_t r = ps[k];
    const uint64_t m = j0 % r;
    for (uint64_t i = (t0_[k] + r - m) % r; i < len; i += r) marks[i] = 1;
    for (uint64_t i = (t1_[k] + r - m) % r; i < len; i += r) marks[i] = 1;
  }
  stats.sieved += len;
  u64 p[kMaxLimbs + 1];
  for (uint64_t i = 0; i < len; i++) {
    if (marks[i]) continue;
    stats.tested++;
    std::fill(p, p + limbs_ + 1, 0);
    const u64 offset = 12 * (j0 + i);
    const u64 carry = add_small(p, start_.data(), offset, limbs_);
    if (carry) return -1;  // past the caller's range: cannot happen for valid inputs
    if (is_safe_candidate(p)) return int64_t(j0 + i);
  }
  return -1;
}

}  // namespace powprime::bignum
