// Tables of small odd primes, built once per process.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace powprime::bignum {

// Odd primes below kTrialPrimesBelow, for trial division in is_probable_prime.
// Mirrored by TRIAL_PRIMES in src/prime/small-primes.ts.
constexpr uint32_t kTrialPrimesBelow = 1000;
const std::vector<uint32_t>& trial_primes();
// Primes from 5 up to kSieveLimit, for the safe-prime sieve: the deepest
// sieve sieveLimit() in src/prime/tuning.ts asks for (SIEVE_LIMIT_MAX there).
constexpr uint32_t kSieveLimit = 1u << 23;
const std::vector<uint32_t>& sieve_primes();
// 12^-1 mod r for each entry of sieve_primes().
const std::vector<uint32_t>& sieve_inverses_of_12();

}  // namespace powprime::bignum
