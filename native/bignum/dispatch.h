// Chooses the bignum kernel once per process from the table in dispatch.cc
// (the shape of native/kernel_table.h): every kernel that this CPU runs and
// that passes its known-answer self-test (self_test.cc) is usable, best
// first (a fixed order: the table's); the portable one always is. The
// kernel in force is the best usable one unless setBignumKernel() picks
// another (tests and benchmarks do, to cover every kernel on one machine).
#pragma once
#include <string>
#include <vector>

#include "kernel.h"
#include "kernel_in_force.h"

namespace powprime::bignum {

// Usable here, best first; the portable kernel is always last.
const std::vector<const BignumKernel*>& usable_kernels();
// Kernels compiled in but refused here, as "id: reason" (CPU lacks the
// instructions, or the self-test failed).
const std::vector<std::string>& refused_kernels();
// kernel_in_force() (kernel_in_force.h): the kernel new work runs on.
// Puts the usable kernel with this id in force (all threads, from the next
// number on); returns it, or null (nothing changes) when no usable kernel has that id.
const BignumKernel* use_kernel(const std::string& id);
// Puts the best usable kernel back in force.
const BignumKernel& use_best_kernel();

}  // namespace powprime::bignum
