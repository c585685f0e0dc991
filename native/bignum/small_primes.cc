#include "small_primes.h"

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

}  // namespace

const std::vector<uint32_t>& trial_primes() {
  static const std::vector<uint32_t> p = odd_primes_below(kTrialPrimesBelow, 3);
  return p;
}

const std::vector<uint32_t>& sieve_primes() {
  static const std::vector<uint32_t> p = odd_primes_below(kDenseSieveLimit, 5);
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
