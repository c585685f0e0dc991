// Internal checks of invariants the callers keep (in the spirit of
// libsecp256k1's VERIFY): compiled in only by the POWPRIME_VERIFY build
// (CMake option, turned on by the sanitizer run), where a failed one prints
// the file, the line and the check to stderr and aborts. Every other build
// compiles them out entirely: the condition is not even evaluated, so a check
// may be as slow as it needs to be.
#pragma once

#ifdef POWPRIME_VERIFY
#include <cstdio>
#include <cstdlib>
#define POWPRIME_CHECK(cond)                                                                        \
  do {                                                                                              \
    if (!(cond)) {                                                                                  \
      std::fprintf(stderr, "%s:%d: POWPRIME_VERIFY check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                                 \
    }                                                                                               \
  } while (0)
#else
#define POWPRIME_CHECK(cond) \
  do {                       \
  } while (0)
#endif
