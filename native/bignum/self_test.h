// The known-answer test every bignum kernel passes at load before the
// dispatcher (dispatch.cc) admits it.
#pragma once
#include "kernel.h"

namespace powprime::bignum {

// Known answers on every path the kernel has, with this kernel passed
// explicitly everywhere (never the kernel in force, which it helps choose).
bool self_test(const BignumKernel& k);

}  // namespace powprime::bignum
