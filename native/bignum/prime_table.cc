#include "prime_table.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "small_primes.h"
#include "wide_arith.h"

namespace powprime::bignum {

size_t PrimeTable::count_below(uint64_t x) const {
  const uint64_t i = std::min<uint64_t>(x / 2, bits_.size() * 64);  // odd 2i' + 1 < x ⇔ i' < ⌊x/2⌋
  const size_t w = size_t(i / 64), b = w / kBlockWords;
  size_t n = size_t(before_[b]);
  for (size_t k = b * kBlockWords; k < w; k++) n += size_t(popcount64(bits_[k]));
  if (i % 64) n += size_t(popcount64(bits_[w] & ((uint64_t(1) << (i % 64)) - 1)));
  return n;
}

PrimeCursor::PrimeCursor(const PrimeTable& t, uint64_t lo, uint64_t hi)
    : bits_(t.bits_.data()), i_(lo / 2), end_(std::min<uint64_t>(hi / 2, t.bits_.size() * 64)) {}

size_t PrimeCursor::next(uint32_t* out, size_t cap) {
  size_t m = 0;
  while (i_ < end_ && m + 64 <= cap) {
    const uint64_t w = i_ / 64, top = std::min(end_, (w + 1) * 64);
    uint64_t word = bits_[w] & (~uint64_t(0) << (i_ % 64));
    if (top % 64) word &= (uint64_t(1) << (top % 64)) - 1;
    const uint32_t first = uint32_t(128 * w + 1);
    for (; word; word &= word - 1) out[m++] = first + 2 * uint32_t(ctz64(word));
    i_ = top;
  }
  return m;
}

// A table's bitmap, a segment of odd numbers at a time: a byte an odd number
// in a segment that stays in cache while the striking primes
// (up to √limit ≤ 2^16) sweep it, then packed eight bytes to a byte. Between
// segments a build sees a stop (the table to 2^32 takes about two seconds) and leaves
// the rest to the next caller; callers wait for each other on the mutex.
//
// What a segment costs, and why it is not a loop of byte tests: 3, 5, 7, 11
// and 13 (nearly half of all strikes) come from a copy of their pattern, and
// each striking prime keeps its next multiple from one segment to the next
// (no division a prime a segment).
class PrimeTableBuilder {
 public:
  explicit PrimeTableBuilder(uint64_t limit) : end_(limit / 2) {}

  bool whole() const { return done_.load(std::memory_order_acquire); }

  const PrimeTable* get(StopFlag stop) {
    if (whole()) return &table_;
    std::lock_guard<std::mutex> lock(mutex_);
    if (done_.load(std::memory_order_relaxed)) return &table_;  // built while this caller waited
    if (!started_) {
      started_ = true;
      start();
    }
    while (lo_ < end_) {
      if (stop.raised()) return nullptr;
      segment();
    }
    table_.before_.push_back(total_);  // for count_below(limit)
    release(base_);
    release(next_);
    release(pattern_);
    release(composite_);
    done_.store(true, std::memory_order_release);
    return &table_;
  }

 private:
  // Odd numbers a segment, a byte each: 256 KiB, in the second-level cache.
  // Measured on Zen 5 to 2^30: 32 KiB (the first-level cache) took 0.8 s,
  // as each of the 3,500 striking primes comes back every segment for one or
  // two strikes; 128 and 256 KiB about 0.5 s.
  static constexpr uint64_t kSegment = uint64_t(1) << 18;
  static_assert(kSegment == 64 * PrimeTable::kBlockWords, "a segment is one count block");
  // The pattern's primes and its period (odd numbers): 3·5·7·11·13.
  static constexpr uint32_t kPatternPrimes[] = {3, 5, 7, 11, 13};
  static constexpr uint64_t kPeriod = 15015;

  // Odd n = 2i + 1 is index i; the segment holds i in [lo_, lo_ + kSegment), n < limit ⇔ i < end_.
  void start() {
    // sieve_primes() holds every odd prime from 5 below 2^16 = √kSieveLimit, all a composite below it
    // needs; 5 to 13 are the pattern's.
    for (const uint32_t p : sieve_primes()) {
      if (p < 17) continue;
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
    composite_.resize(kSegment);
    table_.bits_.assign(size_t(end_ / 64), 0);
  }

  void segment() {
    // end_ and lo_ are multiples of kSegment (limits are powers of two from 2^22), so segments are whole.
    const uint64_t hi = lo_ + kSegment;
    // The pattern strikes 3 to 13 themselves, but they are below kDenseSieveLimit too.
    std::memcpy(composite_.data(), pattern_.data() + lo_ % kPeriod, kSegment);
    // Locals, not members: a byte store may alias any object, so the loop
    // would otherwise load lo_ again after every strike.
    uint8_t* const c = composite_.data();
    const uint64_t lo = lo_;
    for (size_t k = 0; k < base_.size(); k++) {
      const uint64_t p = base_[k];
      uint64_t i = next_[k] - lo;
      for (; i < kSegment; i += p) c[i] = 1;
      next_[k] = i + lo;
    }
    // Bytes are 0 or 1: the low bit of each byte of ~word marks a prime, and
    // the multiply gathers byte k's low bit into bit 56 + k.
    uint64_t* bits = table_.bits_.data() + lo_ / 64;
    const uint8_t* s = composite_.data();
    table_.before_.push_back(total_);  // the segment is one count block
    for (uint64_t w = 0; w < kSegment / 64; w++) {
      uint64_t word = 0;
      for (int g = 0; g < 8; g++) {
        uint64_t bytes;
        std::memcpy(&bytes, s + 64 * w + 8 * g, 8);
        word |= (((~bytes & 0x0101010101010101ull) * 0x0102040810204080ull) >> 56) << (8 * g);
      }
      // Odd numbers below kDenseSieveLimit are the dense tier's: left out.
      if (lo_ / 64 + w < kDenseSieveLimit / 128) word = 0;
      bits[w] = word;
      total_ += uint64_t(popcount64(word));
    }
    lo_ = hi;
  }

  PrimeTable table_;
  const uint64_t end_;
  uint64_t lo_ = 0;
  uint64_t total_ = 0;  // primes in the segments done
  // Striking primes from 17 (those whose square is below the limit) and each one's next odd multiple, as an index.
  std::vector<uint32_t> base_;
  std::vector<uint64_t> next_;
  std::vector<uint8_t> pattern_, composite_;
  bool started_ = false;
  std::mutex mutex_;
  std::atomic<bool> done_{false};
};

namespace {
constexpr uint64_t kTableLimits[] = {uint64_t(1) << 22, uint64_t(1) << 25, uint64_t(1) << 28,
                                     uint64_t(1) << 30, uint64_t(1) << 31, kSieveLimit};
constexpr size_t kTables = sizeof(kTableLimits) / sizeof(kTableLimits[0]);

size_t table_for(uint64_t limit) {
  size_t i = 0;
  while (i + 1 < kTables && kTableLimits[i] < limit) i++;
  return i;
}
}  // namespace

uint64_t deep_table_limit(uint64_t limit) { return kTableLimits[table_for(limit)]; }

const PrimeTable* deep_sieve_primes(uint64_t limit, StopFlag stop) {
  static PrimeTableBuilder tables[kTables] = {PrimeTableBuilder(kTableLimits[0]), PrimeTableBuilder(kTableLimits[1]),
                                              PrimeTableBuilder(kTableLimits[2]), PrimeTableBuilder(kTableLimits[3]),
                                              PrimeTableBuilder(kTableLimits[4]), PrimeTableBuilder(kTableLimits[5])};
  const size_t i = table_for(limit);
  // A deeper table already whole serves a shallower sieve too (readers name
  // their own ranges): a process that searched deep first holds one table,
  // not two.
  for (size_t k = i + 1; k < kTables; k++)
    if (tables[k].whole()) return tables[k].get(stop);
  return tables[i].get(stop);
}

}  // namespace powprime::bignum
