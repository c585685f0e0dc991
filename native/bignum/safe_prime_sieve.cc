#include "safe_prime_sieve.h"

#include <algorithm>
#include <optional>

#include "mont_ifma.h"
#include "montgomery.h"
#include "primality.h"
#include "small_primes.h"

namespace powprime::bignum {

SafePrimeSieve::SafePrimeSieve(const u64* start, int limbs, uint32_t sieve_limit, int rounds, bool only_23_mod_24)
    : start_(start, start + limbs), limbs_(limbs), rounds_(rounds) {
  // p_j = start + 12·j ≡ 23 (mod 24) exactly when j's parity is that of (start ≡ 11 mod 24).
  struck_parity_ = only_23_mod_24 ? (mod_small(start, limbs, 24) == 23 ? 1 : 0) : -1;
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

namespace {
bool stopped(const std::atomic<uint64_t>* stop) { return stop && stop->load(std::memory_order_relaxed) != 0; }
}  // namespace

int64_t SafePrimeSieve::test_batch(const uint64_t* js, int count, const std::atomic<uint64_t>* stop) const {
  u64 p[kIfmaBatch][kMaxLimbs + 1], q[kIfmaBatch][kMaxLimbs];
  std::optional<Mont> mq[kIfmaBatch];
  const Mont* ms[kIfmaBatch] = {};
  for (int k = 0; k < count; k++) {
    std::fill(p[k], p[k] + limbs_ + 1, 0);
    if (add_small(p[k], start_.data(), 12 * js[k], limbs_)) return -1;  // beyond the caller's range: cannot happen
    shr1(q[k], p[k], limbs_);
    mq[k].emplace(q[k], limbs_);
    ms[k] = &*mq[k];
  }
  bool fermat_q[kIfmaBatch];
  fermat_base2_batch(ms, count, fermat_q);
  for (int k = 0; k < count; k++) {
    if (!fermat_q[k]) continue;
    if (stopped(stop)) return kStopped;
    const Mont mp(p[k], limbs_);
    // q has no factor below the sieve limit, so trial division would find nothing.
    if (fermat_base2(mp) && is_probable_prime(q[k], limbs_, rounds_, /*trial=*/false)) return int64_t(js[k]);
  }
  return -1;
}

int64_t SafePrimeSieve::search(uint64_t j0, uint64_t j1, SieveStats& stats, const std::atomic<uint64_t>* stop) {
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
  if (struck_parity_ >= 0)
    for (uint64_t i = (j0 & 1) == uint64_t(struck_parity_) ? 0 : 1; i < len; i += 2) marks[i] = 1;
  stats.sieved += len;
  // Survivors go through base-2 Fermat on q a few at a time (the IFMA kernel
  // runs them together); the rest of the test follows in increasing j, so the
  // lowest safe prime of the range is still the one returned.
  // Only the IFMA kernel gains from a batch; elsewhere one at a time, so a
  // stop is seen after at most one test.
  const int batch_size = bignum_kernel() == MulKernel::ifma ? kIfmaBatch : 1;
  uint64_t batch[kIfmaBatch];
  int count = 0;
  for (uint64_t i = 0; i <= len; i++) {
    if (i < len && marks[i]) continue;
    if (i < len) {
      batch[count++] = j0 + i;
      stats.tested++;
      if (count < batch_size) continue;
    }
    if (count == 0) break;
    if (stopped(stop)) return kStopped;
    const int64_t found = test_batch(batch, count, stop);
    if (found != -1) return found;
    count = 0;
  }
  return -1;
}

}  // namespace powprime::bignum
