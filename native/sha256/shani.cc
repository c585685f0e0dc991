// SHA-NI kernel. sha256rnds2 has a latency of several cycles but can issue
// more often than that, so the group search runs Lanes independent
// candidates through each round step to keep the unit busy; a single message
// (compress) cannot do that and gets the plain sequence. Two and four lanes
// are both built: which is faster depends on the core (four measured +11% on
// Zen 5), so dispatch.cc times them at load.
#include "sha256.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define POWPRIME_SHANI __attribute__((target("sha,sse4.1,ssse3")))

namespace powprime::sha256 {
namespace {

// State in the register layout sha256rnds2 wants: ABEF and CDGH.
struct ShaState {
  __m128i abef, cdgh;
};

POWPRIME_SHANI inline ShaState to_sha(const uint32_t s[8]) {
  return {_mm_set_epi32(int(s[0]), int(s[1]), int(s[4]), int(s[5])),
          _mm_set_epi32(int(s[2]), int(s[3]), int(s[6]), int(s[7]))};
}

POWPRIME_SHANI inline void from_sha(const ShaState& st, uint32_t s[8]) {
  s[0] = uint32_t(_mm_extract_epi32(st.abef, 3));
  s[1] = uint32_t(_mm_extract_epi32(st.abef, 2));
  s[4] = uint32_t(_mm_extract_epi32(st.abef, 1));
  s[5] = uint32_t(_mm_extract_epi32(st.abef, 0));
  s[2] = uint32_t(_mm_extract_epi32(st.cdgh, 3));
  s[3] = uint32_t(_mm_extract_epi32(st.cdgh, 2));
  s[6] = uint32_t(_mm_extract_epi32(st.cdgh, 1));
  s[7] = uint32_t(_mm_extract_epi32(st.cdgh, 0));
}

POWPRIME_SHANI inline __m128i kquad(int i) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(&K[4 * i])); }

// Four rounds (quad i) for each lane.
template <int N>
POWPRIME_SHANI inline void quad(ShaState (&st)[N], const __m128i (&msg)[N], int i) {
  const __m128i k = kquad(i);
  __m128i x[N];
  for (int l = 0; l < N; l++) x[l] = _mm_add_epi32(msg[l], k);
  for (int l = 0; l < N; l++) st[l].cdgh = _mm_sha256rnds2_epu32(st[l].cdgh, st[l].abef, x[l]);
  for (int l = 0; l < N; l++) x[l] = _mm_shuffle_epi32(x[l], 0x0E);
  for (int l = 0; l < N; l++) st[l].abef = _mm_sha256rnds2_epu32(st[l].abef, st[l].cdgh, x[l]);
}

// Message quad i >= 4 from the four before it, kept in a ring of 4.
template <int N>
POWPRIME_SHANI inline void next_quad(__m128i (&ring)[4][N], int i) {
  __m128i(&q4)[N] = ring[i & 3];
  const __m128i(&q3)[N] = ring[(i + 1) & 3];
  const __m128i(&q2)[N] = ring[(i + 2) & 3];
  const __m128i(&q1)[N] = ring[(i + 3) & 3];
  for (int l = 0; l < N; l++) {
    __m128i t = _mm_sha256msg1_epu32(q4[l], q3[l]);
    t = _mm_add_epi32(t, _mm_alignr_epi8(q1[l], q2[l], 4));
    q4[l] = _mm_sha256msg2_epu32(t, q1[l]);
  }
}

// Rounds from quad `first` to 63 on N lanes whose message quads 0..3 are in
// ring; quads before `first` are assumed already applied to st.
template <int N>
POWPRIME_SHANI inline void rounds_from(ShaState (&st)[N], __m128i (&ring)[4][N], int first) {
  for (int i = first; i < 4; i++) quad<N>(st, ring[i], i);
#pragma GCC unroll 12
  for (int i = 4; i < 16; i++) {
    next_quad<N>(ring, i);
    quad<N>(st, ring[i & 3], i);
  }
}

POWPRIME_SHANI void compress(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
  ShaState st[1] = {to_sha(state)};
  for (size_t n = 0; n < nblocks; n++, blocks += 64) {
    const ShaState start = st[0];
    __m128i ring[4][1];
    for (int i = 0; i < 4; i++)
      ring[i][0] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks + 16 * i)), bswap);
    rounds_from<1>(st, ring, 0);
    st[0].abef = _mm_add_epi32(st[0].abef, start.abef);
    st[0].cdgh = _mm_add_epi32(st[0].cdgh, start.cdgh);
  }
  from_sha(st[0], state);
}

template <int Lanes>
POWPRIME_SHANI int64_t search_group(const uint32_t mid[8], const uint32_t w16[16], int fast, const uint32_t* table,
                                    uint32_t from, uint32_t to, uint32_t mask0) {
  // Whole quads before the one holding the changing word are run once.
  const int first = fast / 4;
  uint32_t w[64], pre[8];
  group_prefix(mid, w16, 4 * first, w, pre);
  const ShaState start = to_sha(pre);

  __m128i base[4];
  for (int i = 0; i < 4; i++)
    base[i] = _mm_set_epi32(int(w[4 * i + 3]), int(w[4 * i + 2]), int(w[4 * i + 1]), int(w[4 * i]));
  const int lane = fast & 3;
  const __m128i slot = _mm_set_epi32(lane == 3 ? -1 : 0, lane == 2 ? -1 : 0, lane == 1 ? -1 : 0, lane == 0 ? -1 : 0);
  const uint32_t last = to - 1;
  for (uint32_t t = from; t < to; t += Lanes) {
    __m128i ring[4][Lanes];
    ShaState st[Lanes];
    for (int l = 0; l < Lanes; l++) {
      // Past the end of the range a lane repeats the last candidate; its result is ignored.
      const uint32_t idx = t + l <= last ? t + l : last;
      for (int i = 0; i < 4; i++) ring[i][l] = base[i];
      ring[first][l] =
          _mm_or_si128(_mm_andnot_si128(slot, base[first]), _mm_and_si128(slot, _mm_set1_epi32(int(table[idx]))));
      st[l] = start;
    }
    rounds_from<Lanes>(st, ring, first);
    for (int l = 0; l < Lanes; l++) {
      const uint32_t h0 = uint32_t(_mm_extract_epi32(st[l].abef, 3)) + mid[0];
      if ((h0 & mask0) == 0 && t + l <= last) return int64_t(t + l);
    }
  }
  return -1;
}

const BlockHasher kShaniHasher = {"sha-ni", compress};
const PowGroupSearcher kShaniSearcher = {"sha-ni", "sha-ni x2", search_group<2>};
const PowGroupSearcher kShani4Searcher = {"sha-ni-x4", "sha-ni x4", search_group<4>};

}  // namespace

const BlockHasher* shani_hasher() { return &kShaniHasher; }
const PowGroupSearcher* shani_searcher() { return &kShaniSearcher; }
const PowGroupSearcher* shani4_searcher() { return &kShani4Searcher; }

}  // namespace powprime::sha256

#else
namespace powprime::sha256 {
const BlockHasher* shani_hasher() { return nullptr; }
const PowGroupSearcher* shani_searcher() { return nullptr; }
const PowGroupSearcher* shani4_searcher() { return nullptr; }
}  // namespace powprime::sha256
#endif
