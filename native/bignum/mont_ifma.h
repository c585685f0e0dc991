// Modular exponentiation on AVX-512 IFMA (vpmadd52luq/huq): numbers in radix
// 2^52, eight digits per 512-bit register, almost-Montgomery products that
// stay below 2n. Used by Mont::pow and Mont::pow2 when the CPU has IFMA and
// the modulus has at most kIfmaMaxBits bits; everything else stays on the
// 64-bit kernels.
#pragma once
#include "limbs.h"

namespace powprime::bignum {

constexpr int kIfmaMaxBits = 52 * 80 - 2;

// Compiled in, and the CPU (and OS) run AVX-512F + IFMA.
bool ifma_usable();

// r = base^e mod n for plain (non-Montgomery) numbers of `limbs` words;
// base < n, n odd. r2 = 2^(104·digits) mod n as computed by ifma_r2_exponent.
void ifma_modexp(u64* r, const u64* base, const u64* e, int e_limbs, const u64* n, int limbs, const u64* r2);
// r = 2^e mod n.
void ifma_pow2(u64* r, const u64* e, int e_limbs, const u64* n, int limbs, const u64* r2);
// The exponent k for which callers supply r2 = 2^k mod n (k = 2·52·digits).
int ifma_r2_exponent(int bits);

}  // namespace powprime::bignum
