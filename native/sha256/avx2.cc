// AVX2 kernel: eight candidates, one per 32-bit lane. AVX2 has no vector
// rotate, so each rotation is two shifts and an OR; SHA-NI beats this where
// present, and this kernel covers CPUs without it.
#include "sha256.h"
#include "wide_arith.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define POWPRIME_AVX2 __attribute__((target("avx2")))

namespace powprime::sha256 {
namespace {

using V = __m256i;

POWPRIME_AVX2 inline V add(V a, V b) { return _mm256_add_epi32(a, b); }
POWPRIME_AVX2 inline V xor3(V a, V b, V c) { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
template <int N>
POWPRIME_AVX2 inline V rotr(V x) {
  return _mm256_or_si256(_mm256_srli_epi32(x, N), _mm256_slli_epi32(x, 32 - N));
}
POWPRIME_AVX2 inline V bsig0(V x) { return xor3(rotr<2>(x), rotr<13>(x), rotr<22>(x)); }
POWPRIME_AVX2 inline V bsig1(V x) { return xor3(rotr<6>(x), rotr<11>(x), rotr<25>(x)); }
POWPRIME_AVX2 inline V ssig0(V x) { return xor3(rotr<7>(x), rotr<18>(x), _mm256_srli_epi32(x, 3)); }
POWPRIME_AVX2 inline V ssig1(V x) { return xor3(rotr<17>(x), rotr<19>(x), _mm256_srli_epi32(x, 10)); }

struct State {
  V a, b, c, d, e, f, g, h;
};

POWPRIME_AVX2 inline State broadcast(const uint32_t s[8]) {
  return {_mm256_set1_epi32(int(s[0])), _mm256_set1_epi32(int(s[1])), _mm256_set1_epi32(int(s[2])),
          _mm256_set1_epi32(int(s[3])), _mm256_set1_epi32(int(s[4])), _mm256_set1_epi32(int(s[5])),
          _mm256_set1_epi32(int(s[6])), _mm256_set1_epi32(int(s[7]))};
}

POWPRIME_AVX2 inline void rounds(State& s, const V* w, int from) {
  V a = s.a, b = s.b, c = s.c, d = s.d, e = s.e, f = s.f, g = s.g, h = s.h;
  for (int t = from; t < 64; t++) {
    // Ch(e,f,g) = g ^ (e & (f ^ g)); Maj(a,b,c) = b ^ ((a ^ b) & (b ^ c)).
    const V ch = _mm256_xor_si256(g, _mm256_and_si256(e, _mm256_xor_si256(f, g)));
    const V maj = _mm256_xor_si256(b, _mm256_and_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(b, c)));
    const V t1 = add(add(add(h, bsig1(e)), add(ch, _mm256_set1_epi32(int(K[t])))), w[t]);
    const V t2 = add(bsig0(a), maj);
    h = g;
    g = f;
    f = e;
    e = add(d, t1);
    d = c;
    c = b;
    b = a;
    a = add(t1, t2);
  }
  s = {a, b, c, d, e, f, g, h};
}

POWPRIME_AVX2 int64_t search_group(const uint32_t mid[8], const uint32_t w16[16], int fast, const uint32_t* table,
                                   uint32_t from, uint32_t to, uint32_t mask0) {
  uint32_t wc[64], pre[8];
  group_prefix(mid, w16, fast, wc, pre);
  expand_schedule(wc);
  // Schedule words that do not depend on the changing word are the same for
  // every candidate of the group: broadcast them instead of recomputing.
  bool varies[64] = {};
  varies[fast] = true;
  for (int t = 16; t < 64; t++) varies[t] = varies[t - 2] || varies[t - 7] || varies[t - 15] || varies[t - 16];
  const State start = broadcast(pre);

  V w[64];
  for (int t = 0; t < 64; t++) w[t] = _mm256_set1_epi32(int(wc[t]));
  const V m0 = _mm256_set1_epi32(int(mask0));
  const V h0add = _mm256_set1_epi32(int(mid[0]));
  const uint32_t last = to - 1;
  for (uint32_t t = from; t < to; t += 8) {
    if (t + 7 <= last) {
      w[fast] = _mm256_loadu_si256(reinterpret_cast<const V*>(table + t));
    } else {
      // Past the end of the range a lane repeats the last candidate; ignored below.
      alignas(32) uint32_t tail[8];
      for (uint32_t l = 0; l < 8; l++) tail[l] = table[t + l <= last ? t + l : last];
      w[fast] = _mm256_load_si256(reinterpret_cast<const V*>(tail));
    }
    for (int i = 16; i < 64; i++)
      if (varies[i]) w[i] = add(add(ssig1(w[i - 2]), w[i - 7]), add(ssig0(w[i - 15]), w[i - 16]));
    State s = start;
    rounds(s, w, fast);
    const V h0 = add(s.a, h0add);
    const V hit = _mm256_cmpeq_epi32(_mm256_and_si256(h0, m0), _mm256_setzero_si256());
    unsigned bits = unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(hit)));
    if (bits) {
      const uint32_t lane = uint32_t(ctz32(bits));
      if (t + lane <= last) return int64_t(t + lane);
    }
  }
  return -1;
}

const PowGroupSearcher kAvx2Searcher = {"avx2", "avx2 x8", search_group};

}  // namespace

const PowGroupSearcher* avx2_searcher() { return &kAvx2Searcher; }

}  // namespace powprime::sha256

#else
namespace powprime::sha256 {
const PowGroupSearcher* avx2_searcher() { return nullptr; }
}  // namespace powprime::sha256
#endif
