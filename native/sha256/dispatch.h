// Chooses the SHA-256 kernel once per process: the fastest one this CPU runs
// that also passes a self-test against the scalar reference.
#pragma once
#include <string>
#include <vector>

#include "sha256.h"

namespace powprime::sha256 {

// Kernels usable here, best first; scalar is always last.
const std::vector<const Kernel*>& usable_kernels();
// Kernels compiled in but refused here, with the reason (CPU lacks the
// instructions, or the self-test failed).
const std::vector<std::string>& refused_kernels();
const Kernel& best_kernel();
// The best kernel that can hash an arbitrary message fast (AVX2's compress
// duplicates one message across lanes, so it is never chosen for this).
const Kernel& best_hasher();
// A usable kernel by id ("sha-ni", "avx2", "scalar"), or null.
const Kernel* kernel_by_name(const std::string& name);

// SHA-256 of a whole message with the given kernel's compress.
void hash(const Kernel& kernel, const uint8_t* data, size_t len, uint8_t out[32]);

}  // namespace powprime::sha256
