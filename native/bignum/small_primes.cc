#include "small_primes.h"

#include <algorithm>
#include <cmath>

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

// The same from `from` to `limit` (≤ 2^32), a segment at a time: the
// striking primes (up to √limit < 2^16) sweep a window of odd numbers that
// stays in L2, where one table for the whole range (64 MB at 2^30) would
// miss the cache at nearly every strike.
std::vector<uint32_t> odd_primes_between(uint32_t from, uint64_t limit) {
  const std::vector<uint32_t> base = odd_primes_below(1u << 16, 3);
  constexpr uint64_t kSegment = uint64_t(1) << 18;  // odd numbers a segment, a byte each
  std::vector<uint8_t> composite(kSegment);
  std::vector<uint32_t> out;
  out.reserve(size_t(double(limit) / (std::log(double(limit)) - 1.1)));
  // Odd n = 2i + 1 is index i; n < limit ⇔ i < limit / 2.
  const uint64_t end = limit / 2;
  for (uint64_t lo = from / 2; lo < end; lo += kSegment) {
    const uint64_t hi = std::min(lo + kSegment, end);
    std::fill(composite.begin(), composite.end(), 0);
    for (const uint32_t p : base) {
      const uint64_t pp = uint64_t(p) * p;
      if (pp >= 2 * hi + 1) break;
      // The first odd multiple of p from max(p², 2·lo + 1), as an index.
      uint64_t m = std::max(pp, (2 * lo + 1 + p - 1) / p * p);
      if (m % 2 == 0) m += p;
      for (uint64_t i = m / 2 - lo; i < hi - lo; i += p) composite[i] = 1;
    }
    for (uint64_t i = 0; i < hi - lo; i++)
      if (!composite[i]) out.push_back(uint32_t(2 * (lo + i) + 1));
  }
  return out;
}

}  // namespace

const std::vector<uint32_t>& trial_primes() {
  static const std::vector<uint32_t> p = odd_primes_below(kTrialPrimesBelow, 3);
  return p;
}

const std::vector<uint32_t>& sieve_primes() {
  static const std::vector<uint32_t> p = odd_primes_below(kDenseSieveLimit, 5);
  return p;
}

const std::vector<uint32_t>& deep_sieve_primes(uint32_t limit) {
  if (limit <= (1u << 22)) {
    static const std::vector<uint32_t> p = odd_primes_between(kDenseSieveLimit, 1u << 22);
    return p;
  }
  if (limit <= (1u << 25)) {
    static const std::vector<uint32_t> p = odd_primes_between(kDenseSieveLimit, 1u << 25);
    return p;
  }
  if (limit <= (1u << 28)) {
    static const std::vector<uint32_t> p = odd_primes_between(kDenseSieveLimit, 1u << 28);
    return p;
  }
  static const std::vector<uint32_t> p = odd_primes_between(kDenseSieveLimit, kSieveLimit);
  return p;
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
