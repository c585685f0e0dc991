#include "small_primes.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>

namespace powprime::bignum {
namespace {

std::vector<uint32_t> odd_primes_below(uint32_t limit, uint32_t from) {
  std::vector<uint8_t> composite(limit, 0);
  std::vector<uint32_t> out;
  for (uint32_t i = 3; i < limit; i += 2) {
    if (composite[i]) continue;
    if (i >= from) out.push_back(i);
    for (uint64_t j = uint64_t(i) * i; j < limit; j += 2 * i) composite[j] = 1;
  }
  return out;
}

// Odd primes from kDenseSieveLimit below `limit` (≤ 2^32), a segment at a
// time: the striking primes (up to √limit < 2^16) sweep a window of odd
// numbers that stays in L2, where one table for the whole range (64 MB at
// 2^30) would miss the cache at nearly every strike. Between segments a
// build sees a stop (the table to 2^31 takes a second) and leaves the rest
// to the next caller; callers wait for each other on the mutex.
//
// What a segment costs, and why it is not a loop of byte tests: 3, 5, 7, 11
// and 13 (nearly half of all strikes) come from a copy of their pattern;
// each striking prime keeps its next multiple from one segment to the next
// (no division a prime a segment); and survivors are read eight bytes at a
// time, a primes' bit mask from each word.
class DeepTable {
 public:
  explicit DeepTable(uint64_t limit) : end_(limit / 2), lo_(kDenseSieveLimit / 2) {}

  const DeepArray* get(StopFlag stop) {
    if (done_.load(std::memory_order_acquire)) return &primes_;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!started_) {
      started_ = true;
      primes_.reserve(size_t(2 * end_ / (std::log(2.0 * double(end_)) - 1.1)));
      start();
    }
    while (lo_ < end_) {
      if (stop.raised()) return nullptr;
      segment();
    }
    base_ = {};
    next_ = {};
    pattern_ = {};
    composite_ = {};
    found_ = {};
    done_.store(true, std::memory_order_release);
    return &primes_;
  }

 private:
  static constexpr uint64_t kSegment = uint64_t(1) << 18;  // odd numbers a segment, a byte each
  // The pattern's primes and its period (odd numbers): 3·5·7·11·13.
  static constexpr uint32_t kPatternPrimes[] = {3, 5, 7, 11, 13};
  static constexpr uint64_t kPeriod = 15015;

  // Odd n = 2i + 1 is index i; the segment holds i in [lo_, lo_ + kSegment), n < limit ⇔ i < end_.
  void start() {
    const std::vector<uint32_t> base = odd_primes_below(1u << 16, 17);
    for (const uint32_t p : base) {
      const uint64_t pp = uint64_t(p) * p;
      if (pp >= 2 * end_ + 1) break;
      // The first odd multiple of p from max(p², 2·lo_ + 1), as an index.
      uint64_t m = std::max(pp, (2 * lo_ + 1 + p - 1) / p * p);
      if (m % 2 == 0) m += p;
      base_.push_back(p);
      next_.push_back(m / 2);
    }
    // Index i is a multiple of p ≥ 3 when 2i + 1 ≡ 0 (mod p); composite bytes are 1.
    pattern_.assign(kPeriod + kSegment, 0);
    for (const uint32_t p : kPatternPrimes)
      for (uint64_t i = (p - 1) / 2; i < pattern_.size(); i += p) pattern_[i] = 1;
  }

  void segment() {
    const uint64_t hi = std::min(lo_ + kSegment, end_);
    const uint64_t len = hi - lo_;
    // lo_ is past 13 (kDenseSieveLimit), so no pattern prime is itself struck out.
    const uint8_t* from = pattern_.data() + lo_ % kPeriod;
    composite_.assign(from, from + len);
    uint8_t* c = composite_.data();
    for (size_t k = 0; k < base_.size(); k++) {
      const uint64_t p = base_[k];
      uint64_t i = next_[k];
      for (; i < hi; i += p) c[i - lo_] = 1;
      next_[k] = i;
    }
    // Bytes are 0 or 1; the low bit of each byte of ~word marks a prime.
    // Found into a buffer of the segment's size (a push_back a prime reloaded
    // the vector's ends every time), then appended at once.
    found_.resize(size_t(kSegment));
    uint32_t* out = found_.data();
    size_t count = 0;
    const uint32_t first = uint32_t(2 * lo_ + 1);
    uint64_t i = 0;
    for (; i + 8 <= len; i += 8) {
      uint64_t word;
      std::memcpy(&word, c + i, 8);
      uint64_t primes = ~word & 0x0101010101010101ull;
      while (primes) {
        out[count++] = first + uint32_t(2 * (i + uint64_t(ctz64(primes)) / 8));
        primes &= primes - 1;
      }
    }
    for (; i < len; i++)
      if (!c[i]) out[count++] = first + uint32_t(2 * i);
    primes_.insert(primes_.end(), out, out + count);
    lo_ = hi;
  }

  const uint64_t end_;
  uint64_t lo_;
  DeepArray primes_;
  // Striking primes from 17 (those whose square is below the limit) and each one's next odd multiple, as an index.
  std::vector<uint32_t> base_;
  std::vector<uint64_t> next_;
  std::vector<uint8_t> pattern_, composite_;
  std::vector<uint32_t> found_;
  bool started_ = false;
  std::mutex mutex_;
  std::atomic<bool> done_{false};
};

}  // namespace

const std::vector<uint32_t>& trial_primes() {
  static const std::vector<uint32_t> p = odd_primes_below(kTrialPrimesBelow, 3);
  return p;
}

const std::vector<uint32_t>& sieve_primes() {
  static const std::vector<uint32_t> p = odd_primes_below(kDenseSieveLimit, 5);
  return p;
}

const DeepArray* deep_sieve_primes(uint32_t limit, StopFlag stop) {
  static DeepTable t22(1u << 22), t25(1u << 25), t28(1u << 28), t30(1u << 30), deepest(kSieveLimit);
  DeepTable& t = limit <= (1u << 22)   ? t22
                 : limit <= (1u << 25) ? t25
                 : limit <= (1u << 28) ? t28
                 : limit <= (1u << 30) ? t30
                                       : deepest;
  return t.get(stop);
}

const std::vector<uint64_t>& sieve_reciprocals() {
  static const std::vector<uint64_t> m = [] {
    const std::vector<uint32_t>& ps = sieve_primes();
    std::vector<uint64_t> out(ps.size());
    // No odd r divides 2^64, so floor((2^64 − 1) / r) = floor(2^64 / r).
    for (size_t i = 0; i < ps.size(); i++) out[i] = UINT64_MAX / ps[i];
    return out;
  }();
  return m;
}

}  // namespace powprime::bignum
