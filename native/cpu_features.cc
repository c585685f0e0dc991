#include "cpu_features.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <cstdint>

namespace powprime {

static CpuFeatures detect() {
  CpuFeatures f;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool sse41 = c & (1u << 19);
  const bool ssse3 = c & (1u << 9);
  const bool osxsave = c & (1u << 27);
  const bool avx = c & (1u << 28);
  // AVX registers are usable only if the OS saves them on context switch.
  bool ymm_saved = false;
  bool zmm_saved = false;
  if (osxsave) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    ymm_saved = (lo & 0x6) == 0x6;
    zmm_saved = (lo & 0xe6) == 0xe6;  // SSE, AVX, opmask and both ZMM halves
  }
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, a, b, c, d);
  f.avx2 = avx && ymm_saved && (b & (1u << 5));
  f.bmi2 = b & (1u << 8);
  f.adx = b & (1u << 19);
  f.sha_ni = (b & (1u << 29)) && sse41 && ssse3;
  f.avx512f = zmm_saved && (b & (1u << 16));
  f.avx512ifma = f.avx512f && (b & (1u << 21));
  return f;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = detect();
  return f;
}

}  // namespace powprime

#elif defined(__aarch64__) && (defined(__linux__) || defined(__APPLE__))
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1 << 6)
#endif
#else
#include <sys/sysctl.h>
#endif

namespace powprime {

static CpuFeatures detect() {
  CpuFeatures f;
#if defined(__linux__)
  f.arm_sha2 = getauxval(AT_HWCAP) & HWCAP_SHA2;
#else
  int has = 0;
  size_t len = sizeof has;
  f.arm_sha2 = sysctlbyname("hw.optional.arm.FEAT_SHA256", &has, &len, nullptr, 0) == 0 && has;
#endif
  return f;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = detect();
  return f;
}

}  // namespace powprime

#else
namespace powprime {
const CpuFeatures& cpu_features() {
  static const CpuFeatures f;
  return f;
}
}  // namespace powprime
#endif
