// Portable SHA-256: the reference every vector kernel is checked against at
// load time, and the fallback on CPUs without SHA-NI or AVX2.
#include "sha256.h"

namespace powprime::sha256 {

const uint32_t K[64] = {0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
                        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
                        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
                        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
                        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
                        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
                        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
                        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

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
