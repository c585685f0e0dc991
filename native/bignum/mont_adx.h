// Montgomery multiplication with MULX/ADCX/ADOX (BMI2 + ADX): two carry
// chains in flight, so each word product costs about one cycle. Chosen at run
// time by Mont when the CPU has both extensions.
#pragma once
#include "limbs.h"

namespace powprime::bignum {

// r = a·b·R^-1 mod n, with R = 2^(64·len); len a multiple of 4, a, b < n.
void mont_mul_adx(u64* r, const u64* a, const u64* b, const u64* n, u64 n0, int len);
// r = a²·R^-1 mod n: cross products once, doubled, then the reduction.
void mont_sqr_adx(u64* r, const u64* a, const u64* n, u64 n0, int len);
// True when this build has the kernel (x86-64 with GCC or Clang).
bool mont_adx_compiled();

}  // namespace powprime::bignum
