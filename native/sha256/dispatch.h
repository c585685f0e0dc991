// Chooses the SHA-256 kernels once per process from the tables in dispatch.cc
// (the shape of native/kernel_table.h), one per slot: the fastest
// message hasher and the fastest group searcher this CPU runs that also pass
// a self-test against the scalar reference. Searchers are ranked by a short
// timing at load (a few ms), unless POWPRIME_POW_KERNEL names one to put
// first; hashers by a fixed order (SHA-NI, ARMv8, scalar).
#pragma once
#include <string>
#include <vector>

#include "sha256.h"

namespace powprime::sha256 {

// Usable here, best first; scalar is always last.
const std::vector<const BlockHasher*>& usable_hashers();
const std::vector<const PowGroupSearcher*>& usable_searchers();
// Kernels compiled in but refused here, with the reason (CPU lacks the
// instructions, or the self-test failed).
const std::vector<std::string>& refused_kernels();
const BlockHasher& best_hasher();
const PowGroupSearcher& best_searcher();
// Candidates per second one thread reached in the timing at load (0 if not usable).
double searcher_rate(const PowGroupSearcher& k);
// A usable kernel by id ("sha-ni", "avx2", "scalar"), or null.
const BlockHasher* hasher_by_name(const std::string& name);
const PowGroupSearcher* searcher_by_name(const std::string& name);

// SHA-256 of a whole message with the given hasher.
void hash(const BlockHasher& hasher, const uint8_t* data, size_t len, uint8_t out[32]);

}  // namespace powprime::sha256
