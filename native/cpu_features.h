// What the running CPU (and OS) can execute, read once: cpuid/xgetbv on
// x86-64, the OS's own report on arm64 (the instructions that would tell are
// privileged there).
#pragma once

namespace powprime {

struct CpuFeatures {
  bool sha_ni = false;
  bool avx2 = false;
  bool bmi2 = false;
  bool adx = false;
  bool avx512f = false;     // and ZMM state saved by the OS
  bool avx512ifma = false;  // with AVX-512F, and ZMM state saved by the OS
  bool arm_sha2 = false;    // ARMv8 SHA256H/SHA256H2/SHA256SU0/SHA256SU1
};

const CpuFeatures& cpu_features();

}  // namespace powprime
