#include "safe_prime_sieve.h"

#include <algorithm>

#include "fermat_vertical.h"
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
  const std::vector<uint64_t>& recip = sieve_reciprocals();
  nprimes_ = size_t(std::lower_bound(ps.begin(), ps.end(), sieve_limit) - ps.begin());
  // start mod r for every sieve prime, 32 bits of start at a time from the
  // top (the remainder so far, shifted, stays below 2^55). Primes are the
  // inner loop so the steps of different primes overlap instead of waiting
  // on each other.
  std::vector<uint32_t> res(nprimes_, 0);
  for (int i = 2 * limbs - 1; i >= 0; i--) {
    const uint64_t half = (start[i / 2] >> (32 * (i % 2))) & 0xffffffffu;
    for (size_t k = 0; k < nprimes_; k++) res[k] = mod_by_reciprocal((uint64_t(res[k]) << 32) | half, ps[k], recip[k]);
  }
  t0_.resize(nprimes_);
  t1_.resize(nprimes_);
  for (size_t k = 0; k < nprimes_; k++) {
    // r | p_j ⇔ 12·j ≡ −start; r | q_j ⇔ 12·j ≡ 1 − start (mod r).
    const uint32_t r = ps[k];
    const uint64_t minus = res[k] == 0 ? 0 : r - res[k];
    const uint64_t one_minus = minus + 1 == r ? 0 : minus + 1;
    t0_[k] = mod_by_reciprocal(minus * inv[k], r, recip[k]);
    t1_[k] = mod_by_reciprocal(one_minus * inv[k], r, recip[k]);
  }
}

namespace {
bool stopped(const std::atomic<uint64_t>* stop) { return stop && stop->load(std::memory_order_relaxed) != 0; }
}  // namespace

int64_t SafePrimeSieve::test_batch(const uint64_t* js, int count, const std::atomic<uint64_t>* stop) const {
  u64 p[kTestBatch][kMaxLimbs + 1], q[kTestBatch][kMaxLimbs + 1];
  int pw[kTestBatch], qw[kTestBatch];
  const u64* qs[kTestBatch];
  int width = 0;
  for (int k = 0; k < count; k++) {
    std::fill(p[k], p[k] + limbs_ + 1, 0);
    // start + 12·j may carry into one more word (the binding takes any j0
    // below 2^53; a search stream never goes past its bit length): start's
    // words are fewer than kMaxLimbs, so p still fits.
    pw[k] = limbs_;
    if (add_small(p[k], start_.data(), 12 * js[k], limbs_)) p[k][pw[k]++] = 1;
    q[k][limbs_] = 0;
    shr1(q[k], p[k], pw[k]);
    qw[k] = trimmed(q[k], pw[k]);
    qs[k] = q[k];
    width = std::max(width, pw[k]);
  }
  bool fermat_q[kTestBatch];
  fermat_base2_many(qs, count, width, fermat_q);
  for (int k = 0; k < count; k++) {
    if (!fermat_q[k]) continue;
    if (stopped(stop)) return kStopped;
    const Mont mp(p[k], pw[k]);
    // q has no factor below the sieve limit, so trial division would find nothing.
    if (fermat_base2(mp) && is_probable_prime(q[k], qw[k], rounds_, /*trial=*/false)) return int64_t(js[k]);
  }
  return -1;
}

int64_t SafePrimeSieve::search(uint64_t j0, uint64_t j1, SieveStats& stats, const std::atomic<uint64_t>* stop) {
  if (j1 <= j0) return -1;
  const uint64_t len = j1 - j0;
  marks_.assign(len, 0);
  const std::vector<uint32_t>& ps = sieve_primes();
  uint8_t* marks = marks_.data();
  const std::vector<uint64_t>& recip = sieve_reciprocals();
  for (size_t k = 0; k < nprimes_; k++) {
    const uint32_t r = ps[k];
    const uint32_t m = mod_by_reciprocal(j0, r, recip[k]);
    // First j ≥ j0 with j ≡ t (mod r), as an offset: t − m + r lies in (0, 2r).
    uint64_t i0 = uint64_t(t0_[k]) + r - m, i1 = uint64_t(t1_[k]) + r - m;
    if (i0 >= r) i0 -= r;
    if (i1 >= r) i1 -= r;
    for (uint64_t i = i0; i < len; i += r) marks[i] = 1;
    for (uint64_t i = i1; i < len; i += r) marks[i] = 1;
  }
  if (struck_parity_ >= 0)
    for (uint64_t i = (j0 & 1) == uint64_t(struck_parity_) ? 0 : 1; i < len; i += 2) marks[i] = 1;
  stats.sieved += len;
  // Survivors go through base-2 Fermat on q eight at a time on the IFMA
  // kernel (one per SIMD lane), one at a time elsewhere; the rest of the test
  // follows in increasing j, so the lowest safe prime of the range is still
  // the one returned. A stop is seen before each batch, and `tested` counts
  // the candidates of the batches actually run.
  const int batch_size = bignum_kernel() == MulKernel::ifma && fermat2_vertical_takes(bit_length(start_.data(), limbs_) - 1) ? kTestBatch : 1;
  uint64_t batch[kTestBatch];
  int count = 0;
  for (uint64_t i = 0; i <= len; i++) {
    if (i < len && marks[i]) continue;
    if (i < len) {
      batch[count++] = j0 + i;
      if (count < batch_size) continue;
    }
    if (count == 0) break;
    if (stopped(stop)) return kStopped;
    stats.tested += uint64_t(count);
    const int64_t found = test_batch(batch, count, stop);
    if (found != -1) return found;
    count = 0;
  }
  return -1;
}

}  // namespace powprime::bignum
