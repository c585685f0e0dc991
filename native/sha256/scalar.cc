// Portable SHA-256: the reference every vector kernel is checked against at
// load time, and the fallback on CPUs without SHA-NI or AVX2.
#include "sha256.h"

namespace powprime::sha256 {

const uint32_t K[64] = {
#include "round_constants.inc"
};

const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

void expand_schedule(uint32_t w[64]) {
  for (int t = 16; t < 64; t++) w[t] = ssig1(w[t - 2]) + w[t - 7] + ssig0(w[t - 15]) + w[t - 16];
}

void scalar_rounds(uint32_t s[8], const uint32_t w[64], int from, int to) {
  uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
  for (int t = from; t < to; t++) {
    uint32_t t1 = h + bsig1(e) + ((e & f) ^ (~e & g)) + K[t] + w[t];
    uint32_t t2 = bsig0(a) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  s[0] = a;
  s[1] = b;
  s[2] = c;
  s[3] = d;
  s[4] = e;
  s[5] = f;
  s[6] = g;
  s[7] = h;
}

void group_prefix(const uint32_t mid[8], const uint32_t w16[16], int rounds, uint32_t w[64], uint32_t pre[8]) {
  for (int t = 0; t < 64; t++) w[t] = t < 16 ? w16[t] : 0;
  for (int i = 0; i < 8; i++) pre[i] = mid[i];
  scalar_rounds(pre, w, 0, rounds);
}

static void compress(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  uint32_t w[64];
  for (size_t n = 0; n < nblocks; n++, blocks += 64) {
    for (int t = 0; t < 16; t++) w[t] = load_be32(blocks + 4 * t);
    expand_schedule(w);
    uint32_t s[8];
    for (int i = 0; i < 8; i++) s[i] = state[i];
    scalar_rounds(s, w, 0, 64);
    for (int i = 0; i < 8; i++) state[i] += s[i];
  }
}

static int64_t search_group(const uint32_t mid[8], const uint32_t w16[16], int fast, const uint32_t* table,
                            uint32_t from, uint32_t to, uint32_t mask0) {
  // Rounds before the changing word are the same for the whole group.
  uint32_t w[64], pre[8];
  group_prefix(mid, w16, fast, w, pre);
  for (uint32_t t = from; t < to; t++) {
    w[fast] = table[t];
    expand_schedule(w);
    uint32_t s[8];
    for (int i = 0; i < 8; i++) s[i] = pre[i];
    scalar_rounds(s, w, fast, 64);
    if (((s[0] + mid[0]) & mask0) == 0) return t;
  }
  return -1;
}

const BlockHasher kScalarHasher = {"scalar", compress};
const PowGroupSearcher kScalarSearcher = {"scalar", "scalar", search_group};

}  // namespace powprime::sha256
