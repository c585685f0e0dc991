// AVX-512 kernel: 48 (lean: 32) candidates per step, in independent groups
// of 16 lanes; see groups(). Everything here is
// AVX-512F: each rotation is one vprold, each three-way XOR, Ch and Maj one
// vpternlogd. On Zen 5 these have a latency of two cycles and issue several
// per cycle, so one group's round-to-round dependency chain, not the
// instruction count, limits it; the round is reassociated to shorten that
// chain and the other groups fill the gaps. Intel cores run 512-bit
// operations on two ports only, so there the instruction count is the limit
// and the textbook order, one add fewer a round, wins: both are built, as
// two searchers ("avx512", "avx512-lean"), and the timing at load picks.
// A third, "avx512-spare", is the first one's code again at other addresses;
// see kSpare.
#include "sha256.h"
#include "wide_arith.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <utility>

#define POWPRIME_AVX512 __attribute__((target("avx512f")))
// GCC folds functions with identical bodies into one (-fipa-icf), which would
// put the spare copy's code back at the first copy's address; Clang does not
// fold them at these settings.
#if defined(__clang__)
#define POWPRIME_NO_FOLD
#else
#define POWPRIME_NO_FOLD __attribute__((no_icf))
#endif

namespace powprime::sha256 {
namespace {

using V = __m512i;

POWPRIME_AVX512 inline V add(V a, V b) { return _mm512_add_epi32(a, b); }
POWPRIME_AVX512 inline V bc(uint32_t x) { return _mm512_set1_epi32(int(x)); }
// vpternlogd truth tables, bit index (x << 2) | (y << 1) | z.
POWPRIME_AVX512 inline V xor3(V x, V y, V z) { return _mm512_ternarylogic_epi32(x, y, z, 0x96); }
POWPRIME_AVX512 inline V ch(V e, V f, V g) { return _mm512_ternarylogic_epi32(e, f, g, 0xCA); }
POWPRIME_AVX512 inline V maj(V a, V b, V c) { return _mm512_ternarylogic_epi32(a, b, c, 0xE8); }
POWPRIME_AVX512 inline V bsig0(V x) {
  return xor3(_mm512_ror_epi32(x, 2), _mm512_ror_epi32(x, 13), _mm512_ror_epi32(x, 22));
}
POWPRIME_AVX512 inline V bsig1(V x) {
  return xor3(_mm512_ror_epi32(x, 6), _mm512_ror_epi32(x, 11), _mm512_ror_epi32(x, 25));
}
POWPRIME_AVX512 inline V ssig0(V x) {
  return xor3(_mm512_ror_epi32(x, 7), _mm512_ror_epi32(x, 18), _mm512_srli_epi32(x, 3));
}
POWPRIME_AVX512 inline V ssig1(V x) {
  return xor3(_mm512_ror_epi32(x, 17), _mm512_ror_epi32(x, 19), _mm512_srli_epi32(x, 10));
}

// Which schedule words change with message word `fast`.
constexpr std::array<bool, 64> varying_words(int fast) {
  std::array<bool, 64> v{};
  v[fast] = true;
  for (int t = 16; t < 64; t++) v[t] = v[t - 2] || v[t - 7] || v[t - 15] || v[t - 16];
  return v;
}

struct State {
  V a, b, c, d, e, f, g, h;
};

// One round with kw = K[t] + W[t], in one of two association orders; both
// are built and dispatch.cc's timing at load picks (see kSearchers).
//  - Short chain: the new e is ((d + h + kw) + Ch) + Σ1 and the new a is
//    Σ0 + (Maj + T1): the sums that do not wait for e are formed while Ch and
//    Σ1 are computed, which cuts the chain from e to the next e to three
//    steps (rotate, XOR, add). One add more than the textbook order: the
//    better choice where the core has vector ALUs to spare (Zen 5: four).
//  - Lean (Lean = true): the textbook T1 = ((h + kw) + Ch) + Σ1, e = d + T1,
//    a = T1 + (Σ0 + Maj): 16 vector operations a round instead of 17, the
//    better choice where two 512-bit ports are the limit (Intel cores with
//    AVX-512 run 512-bit operations on ports 0 and 5 only, rotates on 0).
template <bool Lean>
POWPRIME_AVX512 inline void round(State& s, V kw) {
  const V hk = add(s.h, kw);
  const V c = ch(s.e, s.f, s.g);
  const V s1 = bsig1(s.e);
  V e, a;
  if constexpr (Lean) {
    const V t1 = add(add(hk, c), s1);
    e = add(s.d, t1);
    a = add(t1, add(bsig0(s.a), maj(s.a, s.b, s.c)));
  } else {
    const V x = add(hk, c);
    const V t1 = add(x, s1);
    e = add(add(s.d, x), s1);
    a = add(bsig0(s.a), add(maj(s.a, s.b, s.c), t1));
  }
  s.h = s.g;
  s.g = s.f;
  s.f = s.e;
  s.e = e;
  s.d = s.c;
  s.c = s.b;
  s.b = s.a;
  s.a = a;
}

// Groups of 16 lanes interleaved: three in the short-chain build, whose
// round-to-round chain is the limit on cores with four vector ALUs (Zen 5),
// so a third independent chain fills their gaps (best rate a length over
// lengths 1–64 on Zen 5, median: 130–137 M hashes/s against 113 with two);
// two in the lean build, for cores where the ALU ports are the limit and a
// third group only adds register spills.
constexpr int groups(bool lean) { return lean ? 2 : 3; }

// Rounds a pass of the round loop runs: eight, so that the state's names
// come back to where they started and no register moves are needed. All 51
// to 61 rounds unrolled made one step 3,500 instructions, about 22 KB: more
// than the core's decoded-op cache keeps for one loop on a busy host, and
// then the decoders set the pace. Word 12 ran at 35–50 M hashes/s in some
// builds and processes and 115–125 in others with the same code at another
// address.
constexpr int kRoundsUnrolled = 8;

// `Copy` changes no instruction: it only makes another instance (kSpare).
template <int F, bool Lean, int Copy>
POWPRIME_AVX512 POWPRIME_NO_FOLD int64_t search_fixed(const uint32_t mid[8], const uint32_t w16[16],
                                                      const uint32_t* table, uint32_t from, uint32_t to,
                                                      uint32_t mask0) {
  static constexpr std::array<bool, 64> varies = varying_words(F);
  // What the group shares: the state after rounds [0, F), K + W for the
  // words that stay constant, and for a varying word the sum of its
  // constant schedule terms.
  uint32_t w[64], s[8], kw[64], cw[64];
  group_prefix(mid, w16, F, w, s);
  expand_schedule(w);
  for (int t = 0; t < 64; t++) {
    kw[t] = K[t] + w[t];
    cw[t] = 0;
    if (t < 16 || !varies[t]) continue;
    // sha256:: names the scalar sigmas, which the vector ones here hide.
    if (!varies[t - 2]) cw[t] += sha256::ssig1(w[t - 2]);
    if (!varies[t - 7]) cw[t] += w[t - 7];
    if (!varies[t - 15]) cw[t] += sha256::ssig0(w[t - 15]);
    if (!varies[t - 16]) cw[t] += w[t - 16];
  }
  // Round F from the shared state: its new a and e are the ones it gives
  // with W = 0, plus each candidate's W.
  uint32_t base[8];
  std::copy(s, s + 8, base);
  w[F] = 0;
  scalar_rounds(base, w, F, F + 1);
  const V a_base = bc(base[0]);
  const V e_base = bc(base[4]);
  const V m0 = bc(mask0);
  const V h0add = bc(mid[0]);

  constexpr int G = groups(Lean);
  // K + W of each round as a vector: the constant words once per call, the
  // varying ones per step (below).
  alignas(64) V kwv[G][64];
  for (int r = F + 1; r < 64; r++)
    if (!varies[r])
      for (int g = 0; g < G; g++) kwv[g][r] = bc(kw[r]);
  for (uint32_t t = from; t < to; t += 16 * G) {
    const uint32_t left = to - t;
    // Lanes past the end of the range load nothing (masked) and never report.
    __mmask16 live[G];
    for (int g = 0; g < G; g++)
      live[g] = __mmask16(left >= 16u * (g + 1) ? 0xFFFF : left <= 16u * g ? 0 : (1u << (left - 16 * g)) - 1);
    V wv[G][64];
    State st[G];
    for (int g = 0; g < G; g++) {
      wv[g][F] = _mm512_maskz_loadu_epi32(live[g], table + t + 16 * g);
      st[g] = {add(a_base, wv[g][F]), bc(s[0]), bc(s[1]), bc(s[2]),
               add(e_base, wv[g][F]), bc(s[4]), bc(s[5]), bc(s[6])};
    }
    // The varying schedule words first, kept as K + W: between the rounds
    // they would hold registers the states need. Unrolled: a loop over the
    // words from where all of them vary ran 12 % slower, each word waiting
    // on one that went through memory two words before.
#pragma GCC unroll 64
    for (int r = 16; r < 64; r++) {
      if (!varies[r]) continue;
      for (int g = 0; g < G; g++) {
        V x = bc(cw[r]);
        if (varies[r - 2]) x = add(x, ssig1(wv[g][r - 2]));
        if (varies[r - 7]) x = add(x, wv[g][r - 7]);
        if (varies[r - 15]) x = add(x, ssig0(wv[g][r - 15]));
        if (varies[r - 16]) x = add(x, wv[g][r - 16]);
        wv[g][r] = x;
        kwv[g][r] = add(x, bc(K[r]));
      }
    }
    // The rounds in a loop of eight (after the odd ones), not unrolled whole:
    // see kRoundsUnrolled.
    constexpr int kHead = (63 - F) % kRoundsUnrolled;
#pragma GCC unroll 8
    for (int r = F + 1; r < F + 1 + kHead; r++)
      for (int g = 0; g < G; g++) round<Lean>(st[g], kwv[g][r]);
#pragma GCC unroll 1
    for (int r = F + 1 + kHead; r < 64; r += kRoundsUnrolled) {
#pragma GCC unroll 8
      for (int i = 0; i < kRoundsUnrolled; i++)
        for (int g = 0; g < G; g++) round<Lean>(st[g], kwv[g][r + i]);
    }
    for (int g = 0; g < G; g++) {
      const __mmask16 hit = _mm512_mask_testn_epi32_mask(live[g], add(st[g].a, h0add), m0);
      if (hit) return int64_t(t + 16 * g + uint32_t(ctz32(hit)));
    }
  }
  return -1;
}

using Fixed = int64_t (*)(const uint32_t*, const uint32_t*, const uint32_t*, uint32_t, uint32_t, uint32_t);

// The changing word's index decides which schedule words vary, and with it
// the shape of the unrolled schedule and of the first rounds: one instance
// per index (kPowWords).
constexpr size_t kWords = kPowWords;
template <bool Lean, int Copy, size_t... F>
constexpr std::array<Fixed, sizeof...(F)> instances(std::index_sequence<F...>) {
  return {search_fixed<int(F), Lean, Copy>...};
}
constexpr std::array<Fixed, kWords> kShortChain = instances<false, 0>(std::make_index_sequence<kWords>());
constexpr std::array<Fixed, kWords> kLean = instances<true, 0>(std::make_index_sequence<kWords>());
// On Zen 5 hosts an instance sometimes runs at half speed in one copy of
// the library file and at full speed in another copy of the same bytes, in
// every process that loads that copy: where its code lands in memory
// decides, not its shape (see plan_words in dispatch.cc). The same code at
// other addresses gives the load-time plan a full-speed place for that word
// without falling back to the lean shape, about a fifth slower there.
constexpr std::array<Fixed, kWords> kSpare = instances<false, 1>(std::make_index_sequence<kWords>());

template <const std::array<Fixed, kWords>& By>
int64_t search_group(const uint32_t mid[8], const uint32_t w16[16], int fast, const uint32_t* table, uint32_t from,
                     uint32_t to, uint32_t mask0) {
  return By[size_t(fast)](mid, w16, table, from, to, mask0);
}

const PowGroupSearcher kAvx512Searcher = {"avx512", "avx512 x48", search_group<kShortChain>};
const PowGroupSearcher kAvx512LeanSearcher = {"avx512-lean", "avx512-lean x32", search_group<kLean>};
const PowGroupSearcher kAvx512SpareSearcher = {"avx512-spare", "avx512 x48", search_group<kSpare>};

}  // namespace

const PowGroupSearcher* avx512_searcher() { return &kAvx512Searcher; }
const PowGroupSearcher* avx512_lean_searcher() { return &kAvx512LeanSearcher; }
const PowGroupSearcher* avx512_spare_searcher() { return &kAvx512SpareSearcher; }

}  // namespace powprime::sha256

#else
namespace powprime::sha256 {
const PowGroupSearcher* avx512_searcher() { return nullptr; }
const PowGroupSearcher* avx512_lean_searcher() { return nullptr; }
const PowGroupSearcher* avx512_spare_searcher() { return nullptr; }
}  // namespace powprime::sha256
#endif
