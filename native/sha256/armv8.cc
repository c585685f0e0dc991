// ARMv8 SHA-2 extension kernel (SHA256H/SHA256H2/SHA256SU0/SHA256SU1). Like
// the SHA-NI kernel, the group search runs kLanes independent candidates
// through each round step, so the crypto unit has independent work while one
// lane's result is still in flight; the rounds before the changing message
// word are run once per group.
#include "sha256.h"

#if defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#include <arm_neon.h>

// Per-function target (GCC spells SHA-2 as part of "+crypto"): the rest of the addon stays plain ARMv8-A and this
// file's code runs only where the CPU reports SHA-2 (cpu_features.cc asks the OS).
#define POWPRIME_ARMSHA __attribute__((target("+crypto")))

namespace powprime::sha256 {
namespace {

constexpr int kLanes = 2;
constexpr const char* kName = "armv8-sha2 x2";

struct ArmState {
  uint32x4_t abcd, efgh;
};

// Four rounds (quad i) for each lane.
template <int N>
POWPRIME_ARMSHA inline void quad(ArmState (&st)[N], const uint32x4_t (&msg)[N], int i) {
  const uint32x4_t k = vld1q_u32(&K[4 * i]);
  for (int l = 0; l < N; l++) {
    const uint32x4_t wk = vaddq_u32(msg[l], k);
    const uint32x4_t abcd = st[l].abcd;
    st[l].abcd = vsha256hq_u32(abcd, st[l].efgh, wk);
    st[l].efgh = vsha256h2q_u32(st[l].efgh, abcd, wk);
  }
}

// Message quad i >= 4 from the four before it, kept in a ring of 4.
template <int N>
POWPRIME_ARMSHA inline void next_quad(uint32x4_t (&ring)[4][N], int i) {
  uint32x4_t(&q4)[N] = ring[i & 3];
  const uint32x4_t(&q3)[N] = ring[(i + 1) & 3];
  const uint32x4_t(&q2)[N] = ring[(i + 2) & 3];
  const uint32x4_t(&q1)[N] = ring[(i + 3) & 3];
  for (int l = 0; l < N; l++) q4[l] = vsha256su1q_u32(vsha256su0q_u32(q4[l], q3[l]), q2[l], q1[l]);
}

// Rounds from quad `first` to 15 on N lanes whose message quads 0..3 are in ring.
template <int N>
POWPRIME_ARMSHA inline void rounds_from(ArmState (&st)[N], uint32x4_t (&ring)[4][N], int first) {
  for (int i = first; i < 4; i++) quad<N>(st, ring[i], i);
#pragma GCC unroll 12
  for (int i = 4; i < 16; i++) {
    next_quad<N>(ring, i);
    quad<N>(st, ring[i & 3], i);
  }
}

POWPRIME_ARMSHA void compress(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  ArmState st[1] = {{vld1q_u32(state), vld1q_u32(state + 4)}};
  for (size_t n = 0; n < nblocks; n++, blocks += 64) {
    const ArmState start = st[0];
    uint32x4_t ring[4][1];
    for (int i = 0; i < 4; i++) ring[i][0] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 16 * i)));
    rounds_from<1>(st, ring, 0);
    st[0].abcd = vaddq_u32(st[0].abcd, start.abcd);
    st[0].efgh = vaddq_u32(st[0].efgh, start.efgh);
  }
  vst1q_u32(state, st[0].abcd);
  vst1q_u32(state + 4, st[0].efgh);
}

POWPRIME_ARMSHA int64_t search_group(const uint32_t mid[8], const uint32_t w16[16], int fast, const uint32_t* table,
                                     uint32_t from, uint32_t to, uint32_t mask0) {
  // Whole quads before the one holding the changing word are run once.
  const int first = fast / 4;
  uint32_t w[64], pre[8];
  group_prefix(mid, w16, 4 * first, w, pre);
  const ArmState start = {vld1q_u32(pre), vld1q_u32(pre + 4)};

  uint32x4_t base[4];
  for (int i = 0; i < 4; i++) base[i] = vld1q_u32(&w[4 * i]);
  const uint32_t slot_bits[4] = {fast % 4 == 0 ? ~0u : 0, fast % 4 == 1 ? ~0u : 0, fast % 4 == 2 ? ~0u : 0,
                                 fast % 4 == 3 ? ~0u : 0};
  const uint32x4_t slot = vld1q_u32(slot_bits);
  const uint32_t last = to - 1;
  for (uint32_t t = from; t < to; t += kLanes) {
    uint32x4_t ring[4][kLanes];
    ArmState st[kLanes];
    for (int l = 0; l < kLanes; l++) {
      // Past the end of the range a lane repeats the last candidate; its result is ignored.
      const uint32_t idx = t + l <= last ? t + l : last;
      for (int i = 0; i < 4; i++) ring[i][l] = base[i];
      ring[first][l] = vbslq_u32(slot, vdupq_n_u32(table[idx]), base[first]);
      st[l] = start;
    }
    rounds_from<kLanes>(st, ring, first);
    for (int l = 0; l < kLanes; l++) {
      const uint32_t h0 = vgetq_lane_u32(st[l].abcd, 0) + mid[0];
      if ((h0 & mask0) == 0 && t + l <= last) return int64_t(t + l);
    }
  }
  return -1;
}

const BlockHasher kArmv8Hasher = {"armv8-sha2", compress};
const PowGroupSearcher kArmv8Searcher = {"armv8-sha2", kName, search_group};

}  // namespace

const BlockHasher* armv8_hasher() { return &kArmv8Hasher; }
const PowGroupSearcher* armv8_searcher() { return &kArmv8Searcher; }

}  // namespace powprime::sha256

#else
namespace powprime::sha256 {
const BlockHasher* armv8_hasher() { return nullptr; }
const PowGroupSearcher* armv8_searcher() { return nullptr; }
}  // namespace powprime::sha256
#endif
