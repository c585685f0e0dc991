// Probable-prime tests on the Montgomery core, with the same verdicts as
// src/prime/ (the TS backend): trial division, Baillie–PSW (strong base 2 +
// strong Lucas with Selfridge's parameters), extra Miller–Rabin rounds on
// bases derived from n by SHA-256, and the safe-prime check.
#pragma once
#include "limbs.h"
#include "montgomery.h"

namespace powprime::bignum {

// Extra Miller–Rabin rounds by default after Baillie–PSW: none up to 64 bits
// (BPSW is exact there), else the first row with min_bits <= bits of the
// classic table for a 2^-80 error on random inputs (Damgård, Landrock and
// Pomerance; the table OpenSSL used before 3.0). Its rows below 65 bits are
// kept as published although BPSW answers those sizes alone. Mirrored by
// defaultRounds in src/prime/primality.ts; the addon exports it so a test
// holds the two equal.
struct RoundsRow {
  int min_bits;
  int rounds;
};
inline constexpr int kBpswExactBits = 64;
inline constexpr RoundsRow kDefaultRounds[] = {{3747, 3}, {1345, 4}, {476, 5}, {400, 6},
                                               {347, 7},  {308, 8},  {55, 27}, {0, 34}};
int default_rounds(int bits);

// On the kernel of m.
bool strong_probable_prime_base2(const Mont& m);
bool strong_lucas_probable_prime(const Mont& m);
// Miller–Rabin round i with the base derived from n (see derive_base).
bool miller_rabin_derived(const Mont& m, int i);

// Full test: small primes, BPSW, then `rounds` derived-base rounds
// (rounds < 0: default_rounds). `trial` enables trial division.
bool is_probable_prime(const u64* n, int limbs, int rounds, bool trial = true,
                       const BignumKernel& kernel = kernel_in_force());
// p ≡ 3 (mod 4), q = (p−1)/2 probable prime, and Pocklington on p with base 2
// (2^(p−1) ≡ 1 mod p and gcd(3, p) = 1) proves p prime given q. p >= 5.
bool is_safe_prime(const u64* p, int limbs, int rounds);

// base^(n-1) ≡ 1 (mod n), base 2.
bool fermat_base2(const Mont& m);
// The same for count odd numbers n[k] > 1 of `limbs` words (zero-padded), on
// the kernel in force: in its batched test where it has one and takes them
// all (up to sixteen at a time in SIMD lanes on the IFMA kernel), else one by one.
void fermat_base2_many(const u64* const* n, int count, int limbs, bool* out);
// How many numbers of this width fermat_base2_many runs together on the
// kernel in force: its lane count, or 1.
int fermat_base2_lanes(int bits);

}  // namespace powprime::bignum
