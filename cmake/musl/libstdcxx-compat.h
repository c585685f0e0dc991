// Force-included into every file of the musl builds (cmake/musl/toolchain.cmake).
// They compile against musl's C headers but the compiler's own libstdc++
// headers, which were configured for glibc and name two of its spellings;
// musl has the same things under its own names.
#pragma once
// libstdc++'s os_defines.h asks glibc's version; musl is not glibc.
#define __GLIBC_PREREQ(major, minor) 0
// The "gnu" locale model's name for the type musl calls locale_t.
typedef struct __locale_struct* __locale_t;
// Configured for glibc 2.30+, <mutex> and <condition_variable> call these two;
// musl has only the CLOCK_REALTIME forms. glibc_shims.cc defines them.
#include <pthread.h>
#include <time.h>
#ifdef __cplusplus
extern "C" {
#endif
int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock, const struct timespec* abstime);
int pthread_mutex_clocklock(pthread_mutex_t* mutex, clockid_t clock, const struct timespec* abstime);
#ifdef __cplusplus
}
#endif
