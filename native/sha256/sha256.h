// SHA-256 building blocks shared by every kernel: constants, the scalar
// rounds, and the two kinds of kernel slot.
#pragma once
#include <cstddef>
#include <cstdint>

namespace powprime::sha256 {

extern const uint32_t K[64];
extern const uint32_t IV[8];

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
// The four sigma functions of FIPS 180-4, scalar.
inline uint32_t bsig0(uint32_t x) { return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22); }
inline uint32_t bsig1(uint32_t x) { return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25); }
inline uint32_t ssig0(uint32_t x) { return rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3); }
inline uint32_t ssig1(uint32_t x) { return rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10); }
inline uint32_t load_be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}
inline void store_be32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}

// Runs rounds [from, to) of the compression on state s (a..h) with the fully
// expanded schedule w[64]. Used to precompute the rounds whose message words
// stay constant over a proof-of-work group.
void scalar_rounds(uint32_t s[8], const uint32_t w[64], int from, int to);
// Expands w[0..15] into w[16..63].
void expand_schedule(uint32_t w[64]);
// What a proof-of-work group shares: its block's words in w[0..15] (the rest
// zero) and, in pre, the state after rounds [0, rounds) from mid, which no
// candidate changes when they differ only from word `rounds` on.
void group_prefix(const uint32_t mid[8], const uint32_t w16[16], int rounds, uint32_t w[64], uint32_t pre[8]);

// Two slots, as Bitcoin Core's sha256.cpp keeps its one-message Transform
// apart from its many-lane TransformD64: an instruction set fills the slots
// it is good at. AVX2 only pays off with eight candidates in its lanes, so it
// has a group search and no message hasher.

// Hashes a message: state = compress(state, block) for each of nblocks
// consecutive 64-byte blocks.
struct BlockHasher {
  const char* id;  // "sha-ni", "scalar": how callers pick one
  void (*compress)(uint32_t state[8], const uint8_t* blocks, size_t nblocks);
};

// The final block ends at byte 55 at most, so a group's changing word is
// 0..13.
constexpr int kPowWords = 14;

// Searches one proof-of-work group: its candidates differ only in message
// word `fast` (index j of w[16]), whose value for candidate t is table[t].
// Returns the lowest t in [from, to) whose first digest word
// h0 = compress(mid, w)[0] has (h0 & mask0) == 0, or -1. `mid` is the state
// before this block.
struct PowGroupSearcher {
  const char* id;    // "sha-ni", "avx2", "scalar": how callers pick one
  const char* name;  // what backendInfo() reports, with the lane count: "sha-ni x2"
  int64_t (*search_group)(const uint32_t mid[8], const uint32_t w[16], int fast, const uint32_t* table, uint32_t from,
                          uint32_t to, uint32_t mask0);
};

extern const BlockHasher kScalarHasher;
extern const PowGroupSearcher kScalarSearcher;
// Null when the compiler could not build them; availability on this CPU is
// decided at run time by dispatch.cc.
const BlockHasher* shani_hasher();
const PowGroupSearcher* shani_searcher();
const PowGroupSearcher* shani5_searcher();
const PowGroupSearcher* avx2_searcher();
const PowGroupSearcher* avx512_searcher();
const PowGroupSearcher* avx512_lean_searcher();
const PowGroupSearcher* avx512_spare_searcher();
const BlockHasher* armv8_hasher();
const PowGroupSearcher* armv8_searcher();

}  // namespace powprime::sha256
