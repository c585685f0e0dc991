#include "safe_prime_sieve.h"

#include <algorithm>

#include "primality.h"
#include "prime_table.h"
#include "sieve_roots.h"
#include "small_primes.h"

namespace powprime::bignum {

SafePrimeSieve::SafePrimeSieve(const u64* start, int limbs, uint64_t sieve_limit, int rounds, Keep keep, DeepPlan plan)
    : start_(start, start + limbs), limbs_(limbs), rounds_(rounds), plan_(plan), keep_(keep) {
  // The struck class is p ≡ c (mod m) with 12 | m, so p_j = start + 12·j is in
  // it for one residue of j modulo m/12: j ≡ (c − start mod m)/12.
  if (keep != Keep::kAll) {
    const uint32_t m = keep == Keep::k23Mod24 ? 24 : 120, c = m - (keep == Keep::k23Mod24 ? 13 : 1);
    struck_period_ = m / 12;
    struck_residue_ = (c + m - mod_small(start, limbs, m)) % m / 12;
  }
  const std::vector<uint32_t>& ps = sieve_primes();
  nprimes_ = size_t(
      std::lower_bound(ps.begin(), ps.end(), uint32_t(std::min<uint64_t>(sieve_limit, kDenseSieveLimit))) - ps.begin());
  t0_.resize(nprimes_);
  t1_.resize(nprimes_);
  sieve_roots(start, limbs, ps.data(), nprimes_, t0_.data(), t1_.data());
  deep_limit_ = sieve_limit > kDenseSieveLimit ? std::min(sieve_limit, kSieveLimit) : 0;
  deep_window_ = deep_window(bit_length(start, limbs));
  // Far primes only from above the window (each then hits a window once a root at most).
  const bool far = deep_limit_ && plan_.spacing > deep_window_ && plan_.spacing < deep_limit_;
  near_limit_ = far ? plan_.spacing : deep_limit_;
  if (far)
    far_ = std::make_shared<FarBlock>(start, limbs, deep_limit_, plan_.spacing, plan_.slots, deep_window_, plan_.ahead);
}

// δ with start = previous + 12·δ, 0 < δ < kMaxShift, or 0 when there is none.
static uint64_t start_offset(const std::vector<u64>& previous, const u64* start, int limbs) {
  uint64_t d = 0;
  if (int(previous.size()) != limbs || !twelfths_above(start, previous.data(), limbs, &d)) return 0;
  return d < kMaxShift ? d : 0;
}

SafePrimeSieve::SafePrimeSieve(const u64* start, int limbs, uint64_t sieve_limit, int rounds, Keep keep, DeepPlan plan,
                               SafePrimeSieve&& previous)
    : SafePrimeSieve(start, limbs, sieve_limit, rounds, keep, plan) {
  std::shared_ptr<FarBlock> block = std::move(previous.far_);
  if (far_ && block && previous.plan_.same_blocks(plan_) &&
      block->same_plan(deep_limit_, plan_.spacing, deep_window_, limbs)) {
    uint64_t delta = 0;
    const int64_t k = block->slot_of(start, limbs, &delta);
    if (k >= 0) {
      far_ = std::move(block);
      far_slot_ = uint32_t(k);
    } else if (delta) {
      far_ = std::make_shared<FarBlock>(start, limbs, deep_limit_, plan_.spacing, plan_.slots, deep_window_,
                                        plan_.ahead, *block, delta);
    } else {
      // A start below the previous block (a thread helping an earlier
      // index): its own window only, not a block's worth it would not use,
      // nor roots kept for a block after it.
      far_ = std::make_shared<FarBlock>(start, limbs, deep_limit_, plan_.spacing, 1, deep_window_, 1);
    }
  }
  const uint64_t delta = start_offset(previous.start_, start, limbs);
  // The previous sieve's roots may still wait for a shift of their own (it
  // never searched its window); the two shifts add up.
  const uint64_t shift = delta + previous.pending_shift_;
  const bool fits = delta && shift < kMaxShift && previous.limbs_ == limbs_ && previous.deep_limit_ == deep_limit_ &&
                    previous.near_limit_ == near_limit_ && previous.keep_ == keep_ && deep_limit_ &&
                    !previous.deep_t0_.empty();
  DeepArray roots = std::move(previous.deep_t0_);
  // The previous sieve is consumed whether or not its roots serve.
  release(previous.deep_t0_);
  release(previous.deep_);
  release(previous.t0_);
  release(previous.t1_);
  if (!fits) return;
  // p'_j = p_{j+δ}: each root moves down by δ modulo r. The shift is done
  // by the first search, in the same pass that strikes (strike_deep), so the
  // roots are read and written once an index.
  deep_t0_ = std::move(roots);
  pending_shift_ = shift;
  derived_ = true;
}

uint64_t SafePrimeSieve::deep_window(int bits) {
  const uint64_t w = uint64_t(bits) * uint64_t(bits) / 2;
  return std::min<uint64_t>(std::max<uint64_t>(w, uint64_t(1) << 16), uint64_t(1) << 25);
}

bool SafePrimeSieve::strike_deep(StopFlag stop) {
  // The table is built by the first search that needs it (half a second to
  // 2^30), and a stop raised meanwhile is seen there too.
  const PrimeTable* table = deep_sieve_primes(deep_limit_, stop);
  if (!table) return false;
  // Roots (held, or derived from a sieve of the same limits) are one per near prime.
  const size_t n = table->count_below(near_limit_);
  const bool have_roots = deep_t0_.size() == n;
  if (!have_roots) deep_t0_.assign(n, 0);
  deep_.assign((deep_window_ + 63) / 64, 0);
  uint64_t* bitmap = deep_.data();
  const uint64_t window = deep_window_;
  // Primes up to the window strike it several times each; the rest (nearly
  // all of them) at most once a root, so for those the roots inside the
  // window are gathered without a branch and struck afterwards.
  const size_t few = table->count_below(window + 1);
  // In blocks, so a stop is seen at 8192 bits and deep limits, where the
  // whole takes seconds, and a block's roots are still in cache when struck.
  constexpr size_t kChunk = 1 << 14;
  std::vector<uint32_t> r(kChunk), t1(kChunk), hits(2 * kChunk);
  PrimeCursor primes(*table, 0, near_limit_);
  for (size_t b = 0, m; b < n; b += m) {
    if (stop.raised()) {
      // The half-made bitmap and half-shifted roots are dropped: the next search remakes them from scratch.
      deep_.clear();
      release(deep_t0_);
      pending_shift_ = 0;
      return false;
    }
    m = primes.next(r.data(), kChunk);
    uint32_t* t0 = deep_t0_.data() + b;
    if (have_roots)
      shift_roots(r.data(), m, pending_shift_, t0, t1.data());
    else
      sieve_roots(start_.data(), limbs_, r.data(), m, t0, t1.data());
    const size_t k_few = b < few ? std::min(m, few - b) : 0;
    for (size_t k = 0; k < k_few; k++) {
      for (uint64_t j = t0[k]; j < window; j += r[k]) bitmap[j / 64] |= uint64_t(1) << (j % 64);
      for (uint64_t j = t1[k]; j < window; j += r[k]) bitmap[j / 64] |= uint64_t(1) << (j % 64);
    }
    size_t h = 0;
    for (size_t k = k_few; k < m; k++) {
      hits[h] = t0[k];
      h += t0[k] < window;
      hits[h] = t1[k];
      h += t1[k] < window;
    }
    for (size_t i = 0; i < h; i++) bitmap[hits[i] / 64] |= uint64_t(1) << (hits[i] % 64);
  }
  pending_shift_ = 0;
  if (far_) {
    const uint64_t* far = far_->window(far_slot_, stop);
    if (!far) {
      deep_.clear();
      return false;
    }
    for (size_t i = 0; i < deep_.size(); i++) bitmap[i] |= far[i];
  }
  return true;
}

size_t SafePrimeSieve::memory_bytes() const {
  return sizeof(*this) + start_.capacity() * sizeof(u64) + (t0_.capacity() + t1_.capacity()) * sizeof(uint32_t) +
         deep_.capacity() * sizeof(uint64_t) + deep_t0_.capacity() * sizeof(uint32_t) +
         (far_ ? far_->memory_bytes() : 0);
}

int SafePrimeSieve::candidate(uint64_t j, bool want_p, u64* out) const {
  // start + 12·j may carry into one more word (the binding takes any j0
  // below 2^53; a search stream never goes past its bit length): start's
  // words are fewer than kMaxLimbs, so p still fits.
  std::fill(out, out + limbs_ + 1, 0);
  int w = limbs_;
  if (add_small(out, start_.data(), 12 * j, limbs_)) out[w++] = 1;
  if (want_p) return w;
  shr1(out, out, w);
  return trimmed(out, w);
}

int64_t SafePrimeSieve::search(uint64_t j0, uint64_t j1, SieveStats& stats, StopFlag stop) {
  if (j1 <= j0) return -1;
  const uint64_t len = j1 - j0;
  // Per call, not a member: a slice's marks (up to 16 MiB through the
  // binding) are freed on return instead of living as long as the sieve.
  std::vector<uint8_t> mark_buf(len, 0);
  const std::vector<uint32_t>& ps = sieve_primes();
  uint8_t* marks = mark_buf.data();
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
  if (struck_period_)
    for (uint64_t i = (struck_residue_ + struck_period_ - j0 % struck_period_) % struck_period_; i < len;
         i += struck_period_)
      marks[i] = 1;
  if (deep_limit_ && j0 < deep_window_) {
    if (deep_.empty() && !strike_deep(stop)) {
      stats.sieved += len;  // as a stop seen before the first test counts them
      return kStopped;
    }
    const uint64_t end = std::min(j1, deep_window_);
    for (uint64_t j = j0; j < end; j++)
      if ((deep_[j / 64] >> (j % 64)) & 1) marks[j - j0] = 1;
  }
  stats.sieved += len;
  // Survivors go through base-2 Fermat on q sixteen at a time on the IFMA
  // kernel (one per SIMD lane; a batch of eight or fewer, as a range's last
  // one often is, runs at half the cost), one at a time elsewhere. Pocklington's Fermat
  // test on p, for the candidates whose q passed, takes the first lanes of
  // the next batch: alone it would run the one-number kernel at several times
  // a lane's cost. Candidates resolve in increasing j (p tests come oldest
  // first from earlier batches, q tests in order), so the first candidate
  // whose full test passes is the lowest safe prime of the range. A stop is
  // seen before each batch, and `tested` counts the q tests actually run.
  const int lanes = std::min(kTestBatch, fermat_base2_lanes(bit_length(start_.data(), limbs_) - 1));
  std::vector<uint64_t> waiting;  // j whose q passed and whose p is untested, increasing
  size_t next_waiting = 0;
  uint64_t i = 0;
  // One candidate of up to limbs_ + 1 words per lane (p may carry into one more word).
  const size_t stride = size_t(limbs_) + 1;
  std::vector<u64> nums(kTestBatch * stride);
  for (;;) {
    uint64_t js[kTestBatch];
    bool is_p[kTestBatch];
    int count = 0;
    for (; count < lanes && next_waiting < waiting.size(); count++) {
      js[count] = waiting[next_waiting++];
      is_p[count] = true;
    }
    const int p_lanes = count;
    for (; count < lanes && i < len; i++) {
      if (marks[i]) continue;
      js[count] = j0 + i;
      is_p[count++] = false;
    }
    if (count == 0) return -1;
    if (stop.raised()) return kStopped;
    stats.tested += uint64_t(count - p_lanes);
    const u64* ns[kTestBatch];
    int width = 1;
    for (int k = 0; k < count; k++) {
      u64* num = nums.data() + size_t(k) * stride;
      width = std::max(width, candidate(js[k], is_p[k], num));
      ns[k] = num;
    }
    bool pass[kTestBatch];
    fermat_base2_many(ns, count, width, pass);
    for (int k = 0; k < count; k++) {
      if (!pass[k]) continue;
      if (!is_p[k]) {
        waiting.push_back(js[k]);
        continue;
      }
      if (stop.raised()) return kStopped;
      // q has no factor below the sieve limit, so trial division would find nothing.
      u64* q = nums.data() + size_t(k) * stride;
      const int qw = candidate(js[k], false, q);
      if (is_probable_prime(q, qw, rounds_, /*trial=*/false)) return int64_t(js[k]);
    }
  }
}

}  // namespace powprime::bignum
