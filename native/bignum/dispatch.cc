#include "dispatch.h"

#include <atomic>

#include "../kernel_table.h"
#include "self_test.h"

namespace powprime::bignum {

// Each kernel is defined in its own file, which returns null where it was
// compiled without the kernel (another architecture or compiler). To add
// one: write its file with a BignumKernel and an accessor, then declare the
// accessor here and give it a row below; admission, the self-test,
// backendInfo() and setBignumKernel() follow.
const BignumKernel* ifma_kernel();      // mont_ifma.cc
const BignumKernel* avx2_kernel();      // mont_adx.cc
const BignumKernel* adx_kernel();       // mont_adx.cc
const BignumKernel* portable_kernel();  // mont_portable.cc: never null, always usable

namespace {

// Best first; the last row is the floor (see admit in kernel_table.h).
const KernelRow<BignumKernel> kTable[] = {
    {
        .name = "ifma",
        .supported = [](const CpuFeatures& cpu) { return cpu.avx512f && cpu.avx512ifma && cpu.bmi2 && cpu.adx; },
        .missing = "CPU lacks AVX-512 IFMA (with BMI2 and ADX)",
        .self_test = self_test,
        .kernel = ifma_kernel,
    },
    {
        .name = "avx2",
        .supported = [](const CpuFeatures& cpu) { return cpu.avx2 && cpu.bmi2 && cpu.adx; },
        .missing = "CPU lacks AVX2 (with BMI2 and ADX)",
        .self_test = self_test,
        .kernel = avx2_kernel,
    },
    {
        .name = "adx",
        .supported = [](const CpuFeatures& cpu) { return cpu.bmi2 && cpu.adx; },
        .missing = "CPU lacks BMI2 and ADX",
        .self_test = self_test,
        .kernel = adx_kernel,
    },
    {
        .name = "portable",
        .supported = any_cpu,
        .missing = "",
        .self_test = self_test,
        .kernel = portable_kernel,
    },
};

struct Registry {
  Admitted<BignumKernel> admitted = admit(kTable, cpu_features());
  std::atomic<const BignumKernel*> in_force{admitted.usable.front()};
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

const std::vector<const BignumKernel*>& usable_kernels() { return registry().admitted.usable; }
const std::vector<std::string>& refused_kernels() { return registry().admitted.refused; }
const BignumKernel& kernel_in_force() { return *registry().in_force.load(std::memory_order_acquire); }

const BignumKernel* use_kernel(const std::string& id) {
  Registry& r = registry();
  for (const BignumKernel* k : r.admitted.usable) {
    if (id != k->id) continue;
    r.in_force.store(k, std::memory_order_release);
    return k;
  }
  return nullptr;
}

const BignumKernel& use_best_kernel() {
  Registry& r = registry();
  r.in_force.store(r.admitted.usable.front(), std::memory_order_release);
  return *r.admitted.usable.front();
}

}  // namespace powprime::bignum
