// What the running CPU (and OS) can execute, read once with cpuid/xgetbv.
#pragma once

namespace powprime {

struct CpuFeatures {
  bool sha_ni = false;
  bool avx2 = false;
  bool bmi2 = false;
  bool adx = false;
  bool avx512ifma = false;  // with AVX-512F, and ZMM state saved by the OS
};

const CpuFeatures& cpu_features();

}  // namespace powprime
