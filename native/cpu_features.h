// What the running CPU (and OS) can execute, read once with cpuid/xgetbv.
#pragma once

namespace powprime {

struct CpuFeatures {
  bool sha_ni = false;
  bool avx2 = false;
  bool bmi2 = false;
  bool adx = false;
};

const CpuFeatures& cpu_features();

}  // namespace powprime
