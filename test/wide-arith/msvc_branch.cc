// wide_arith.h's MSVC branch, compiled by clang in MSVC mode (clang-cl's
// target, freestanding: no MSVC headers exist here), under its own namespace
// name so that it links beside the GCC branch.
#include <stddef.h>
#undef __clang__
#define powprime powprime_msvc
#include "wide_arith.h"
static_assert(POWPRIME_HAS_INT128 == 0, "the MSVC branch");
#define RUN_NAME run_msvc
#include "body.inc"
