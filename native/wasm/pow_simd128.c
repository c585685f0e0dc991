// The WebAssembly SIMD128 proof-of-work kernel: the same walk as
// native/sha256/pow_search.cc and src/pow/kernel.ts (windows, groups of 10^4
// or 10^3 candidates that differ in one message word, the lowest k first),
// four candidates per v128. Freestanding C: no libc, one 64 KiB page of
// memory that never grows. Built by scripts/build-wasm.mjs.
//
// The host writes the window's midstate and final block into pow_io(), then
// calls pow_search; counters cross the boundary as i64 (BigInt in JS).
#include <stdint.h>
#include <wasm_simd128.h>

typedef uint32_t u32x4 __attribute__((vector_size(16), aligned(16)));

static const uint32_t K[64] = {
#include "../sha256/round_constants.inc"
};

// What the host writes before each call: the state after every block before
// the final one, and the final block (nonce tail, digits, 0x80, length).
struct PowIo {
  uint32_t mid[8];
  uint8_t block[64];
};
static struct PowIo io;

__attribute__((export_name("pow_io"))) struct PowIo* pow_io(void) { return &io; }

// Fast-word values for candidate t of a group (twins of FOUR and THREE in
// src/pow/kernel.ts), filled on the first search rather than shipped as data.
// A v128 load at t reads candidates t..t+3; past the end it reads padding
// (or the next table), lanes the search never reports.
static uint32_t four[10000 + 4];
static uint32_t three[1000 + 4];
static int tables_ready;

static void fill_tables(void) {
  for (uint32_t t = 0; t < 10000; t++)
    four[t] = ((48 + t / 1000) << 24) | ((48 + t / 100 % 10) << 16) | ((48 + t / 10 % 10) << 8) | (48 + t % 10);
  for (uint32_t t = 0; t < 1000; t++)
    three[t] = ((48 + t / 100) << 24) | ((48 + t / 10 % 10) << 16) | ((48 + t % 10) << 8) | 0x80;
  tables_ready = 1;
}

// Schedule words 16..63 that depend on message word F (F = 2..13), bit t for
// word t; the others are computed once per group. Derived from
// W[t] = f(W[t-2], W[t-7], W[t-15], W[t-16]) as in buildGroupSearch.
static const uint64_t DEPENDS[14] = {0,
                                     0,
                                     0xfffffffffffe0004ull,
                                     0xfffffffffffc0008ull,
                                     0xfffffffffff80010ull,
                                     0xfffffffffff00020ull,
                                     0xffffffffffe00040ull,
                                     0xffffffffffc00080ull,
                                     0xffffffffff800100ull,
                                     0xffffffffffd50200ull,
                                     0xffffffffffaa0400ull,
                                     0xffffffffff540800ull,
                                     0xfffffffffea81000ull,
                                     0xfffffffffd502000ull};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define BSIG0(x) (ROR(x, 2) ^ ROR(x, 13) ^ ROR(x, 22))
#define BSIG1(x) (ROR(x, 6) ^ ROR(x, 11) ^ ROR(x, 25))
#define SSIG0(x) (ROR(x, 7) ^ ROR(x, 18) ^ ((x) >> 3))
#define SSIG1(x) (ROR(x, 17) ^ ROR(x, 19) ^ ((x) >> 10))

static void expand(uint32_t w[64]) {
  for (int t = 16; t < 64; t++) w[t] = SSIG1(w[t - 2]) + w[t - 7] + SSIG0(w[t - 15]) + w[t - 16];
}

// Scalar rounds [from, to) on state s (no feed-forward).
static void rounds(uint32_t s[8], const uint32_t w[64], int from, int to) {
  uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
  for (int r = from; r < to; r++) {
    const uint32_t t1 = h + BSIG1(e) + (g ^ (e & (f ^ g))) + K[r] + w[r];
    const uint32_t t2 = BSIG0(a) + ((a & b) | (c & (a | b)));
    h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  s[0] = a, s[1] = b, s[2] = c, s[3] = d, s[4] = e, s[5] = f, s[6] = g, s[7] = h;
}

static int meets(const uint32_t h[8], uint32_t difficulty) {
  for (uint32_t i = 0; i < difficulty; i++)
    if ((h[i / 8] >> (28 - 4 * (i % 8))) & 0xF) return 0;
  return 1;
}

// Message words 0..15 as vectors: splats of the group's constant words, with
// word F replaced by the candidates' fast words for each step of the loop.
static u32x4 wv[16];
// Schedule words 16..63 that do not depend on word F, as splats.
static u32x4 wconst[64];

#define SPLAT(x) ((u32x4)wasm_i32x4_splat((int32_t)(x)))
#define VROUND(wk)                                                                                      \
  do {                                                                                                  \
    const u32x4 t1 = h + BSIG1(e) + (u32x4)wasm_v128_bitselect((v128_t)f, (v128_t)g, (v128_t)e) + (wk); \
    const u32x4 t2 = BSIG0(a) + (u32x4)wasm_v128_bitselect((v128_t)c, (v128_t)b, (v128_t)(a ^ b));      \
    h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;                                  \
  } while (0)
// Message word i as a vector: from wv below 16 (word F changes each step),
// else the schedule local. Both arms are indexed in bounds for every i, as
// the compiler sees both before it folds the test.
#define WORD(i) ((i) < 16 ? wv[(i) < 16 ? (i) : 0] : W[(i) < 16 ? 16 : (i)])

// Lowest t in [from, to) whose first digest word h0 has (h0 & mask0) == 0, or
// -1; pre is the state after rounds 0..F-1, which only word F and later change.
static int32_t search_group(uint32_t mid0, const uint32_t pre[8], int fast, uint64_t depends, const uint32_t* table,
                            uint32_t from, uint32_t to, uint32_t mask0) {
  const u32x4 m0 = SPLAT(mid0), mask = SPLAT(mask0);
  for (uint32_t t = from; t < to; t += 4) {
    wv[fast] = (u32x4)wasm_v128_load(table + t);
    u32x4 a = SPLAT(pre[0]), b = SPLAT(pre[1]), c = SPLAT(pre[2]), d = SPLAT(pre[3]);
    u32x4 e = SPLAT(pre[4]), f = SPLAT(pre[5]), g = SPLAT(pre[6]), h = SPLAT(pre[7]);
    for (int r = fast; r < 16; r++) VROUND(wv[r] + SPLAT(K[r]));
    u32x4 W[64];
#pragma clang loop unroll(full)
    for (int r = 16; r < 64; r++) {
      if ((depends >> r) & 1) {
        const u32x4 x = WORD(r - 15), y = WORD(r - 2);
        W[r] = SSIG1(y) + WORD(r - 7) + SSIG0(x) + WORD(r - 16);
      } else {
        W[r] = wconst[r];
      }
      VROUND(W[r] + SPLAT(K[r]));
    }
    const u32x4 hit = (u32x4)wasm_i32x4_eq((v128_t)((a + m0) & mask), wasm_i32x4_splat(0));
    uint32_t lanes = wasm_i32x4_bitmask((v128_t)hit);
    if (lanes) {
      for (uint32_t i = 0; i < 4 && t + i < to; i++)
        if ((lanes >> i) & 1) return (int32_t)(t + i);
    }
  }
  return -1;
}

static uint32_t load_be32(const uint8_t* p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

// Lowest k in [k_start, k_end) whose candidate meets the difficulty, or
// 2^64 - 1 (no counter reaches it: they stop below 10^19). The range lies in
// one window of 10^digits_in_block, whose midstate and block are in pow_io().
__attribute__((export_name("pow_search"))) uint64_t pow_search(uint32_t digits_end, uint32_t digits_in_block,
                                                               uint32_t difficulty, uint64_t k_start, uint64_t k_end) {
  if (!tables_ready) fill_tables();
  const uint32_t group = digits_end % 4 == 0 ? 10000 : 1000;
  const uint32_t* table = group == 10000 ? four : three;
  const int fast = (int)((digits_end - 1) / 4);
  const uint64_t depends = DEPENDS[fast];
  const uint32_t mask0 = difficulty >= 8 ? 0xFFFFFFFFu : difficulty == 0 ? 0u : ~0u << (32 - 4 * difficulty);
  uint8_t block[64];
  for (int i = 0; i < 64; i++) block[i] = io.block[i];
  uint64_t k = k_start;
  while (k < k_end) {
    const uint64_t base = k - k % group;
    uint64_t v = base;
    for (uint32_t i = 0; i < digits_in_block; i++, v /= 10) block[digits_end - 1 - i] = (uint8_t)('0' + v % 10);
    // What a group shares: its constant words, the schedule words that do
    // not depend on word F, and the rounds before F.
    uint32_t w[64];
    for (int t = 0; t < 16; t++) w[t] = load_be32(block + 4 * t);
    expand(w);
    for (int t = 0; t < 16; t++) wv[t] = SPLAT(w[t]);
    for (int t = 16; t < 64; t++)
      if (!((depends >> t) & 1)) wconst[t] = SPLAT(w[t]);
    uint32_t pre[8];
    for (int i = 0; i < 8; i++) pre[i] = io.mid[i];
    rounds(pre, w, 0, fast);
    uint32_t from = (uint32_t)(k - base);
    const uint32_t to = k_end - base < group ? (uint32_t)(k_end - base) : group;
    while (from < to) {
      const int32_t t = search_group(io.mid[0], pre, fast, depends, table, from, to, mask0);
      if (t < 0) break;
      // Only the first digest word was checked; beyond 8 characters the rest
      // is checked here on the rare candidate that gets this far.
      uint32_t h[8];
      for (int i = 0; i < 8; i++) h[i] = io.mid[i];
      w[fast] = table[t];
      expand(w);
      rounds(h, w, 0, 64);
      for (int i = 0; i < 8; i++) h[i] += io.mid[i];
      if (meets(h, difficulty)) return base + (uint64_t)t;
      from = (uint32_t)t + 1;
    }
    k = base + to;
  }
  return ~(uint64_t)0;
}
