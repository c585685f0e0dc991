// The bignum kernel new work runs on, for the callers that do not name one
// (Mont's and is_probable_prime's default argument). Declared apart from
// dispatch.h so that the Montgomery core can default to it without including
// the dispatcher, whose self-test (self_test.cc) runs on that core: the
// include graph stays acyclic. Defined in dispatch.cc, with the overrides.
#pragma once
#include "kernel.h"

namespace powprime::bignum {

const BignumKernel& kernel_in_force();

}  // namespace powprime::bignum
