// Montgomery multiplication with MULX/ADCX/ADOX (BMI2 + ADX): two carry
// chains in flight, so each word product costs about one cycle. The "adx"
// kernel (its row is in mont_adx.cc); the "ifma" kernel reuses these products.
// Compiled on x86-64 with GCC or Clang only.
#pragma once
#include "limbs.h"

namespace powprime::bignum {

// r = a·b·R^-1 mod n, with R = 2^(64·len); len a multiple of 4, a, b < n.
void mont_mul_adx(u64* r, const u64* a, const u64* b, const u64* n, u64 n0, int len);
// r = a²·R^-1 mod n: cross products once, doubled, then the reduction.
void mont_sqr_adx(u64* r, const u64* a, const u64* n, u64 n0, int len);

}  // namespace powprime::bignum
