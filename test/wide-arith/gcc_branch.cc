// wide_arith.h's GCC/clang branch (unsigned __int128, builtins).
#include "wide_arith.h"
static_assert(POWPRIME_HAS_INT128 == 1, "the GCC branch");
#define RUN_NAME run_gcc
#include "body.inc"
