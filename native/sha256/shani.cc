// SHA-NI kernel. sha256rnds2 has a latency of several cycles but can issue
// more often than that, so the group search runs Lanes independent
// candidates through each round step to keep the unit busy; a single message
// (compress) cannot do that and gets the plain sequence. The unit is the
// limit: 32 sha256rnds2 a block at one every two cycles, about half the time
// of the single-message sequence, so every round the group search does not
// hand it is speed (see GroupStart). Two builds compete at load (dispatch.cc):
// two lanes with the message schedule in registers, and five lanes with it in
// memory, because sha256rnds2 can only name the sixteen legacy registers and
// five lanes' state alone takes ten of them.
#include "sha256.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <utility>

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

// Rounds of quads 4..15, each message quad computed as it is needed.
template <int N>
POWPRIME_SHANI inline void later_quads(ShaState (&st)[N], __m128i (&ring)[4][N]) {
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
    for (int i = 0; i < 4; i++) quad<1>(st, ring[i], i);
    later_quads<1>(st, ring);
    st[0].abef = _mm_add_epi32(st[0].abef, start.abef);
    st[0].cdgh = _mm_add_epi32(st[0].cdgh, start.cdgh);
  }
  from_sha(st[0], state);
}

// What every candidate of a group starts from. The rounds before the changing
// word are run once (group_prefix). For an odd word, so is most of its own
// round: only a and e see the word, each as one addition, so that round is
// taken here and sha256rnds2, which runs rounds in pairs, starts at the even
// round after it; an even word's pair starts at the word itself. A pair
// that opens at round 4q + 2 enters quad q's second sha256rnds2, whose
// operands are the other way round, hence `half`.
struct GroupStart {
  int quad;           // first quad (of 16) whose rounds sha256rnds2 runs
  bool half;          // ... from its second pair of rounds
  int word_quad;      // quad of the message holding the changing word
  ShaState state;     // state at that point, less the word (odd words)
  ShaState add_mask;  // where the word is added to `state`: a and e (odd), nowhere (even)
  __m128i slot;       // the changing word's lane in its message quad
  __m128i base[4];    // message quads 0-3, changing word excluded
  __m128i word_base;  // base[word_quad], kept apart: read once a candidate
};

POWPRIME_SHANI inline GroupStart group_start(const uint32_t mid[8], const uint32_t w16[16], int fast) {
  GroupStart g;
  uint32_t w[64], pre[8];
  group_prefix(mid, w16, fast, w, pre);
  const bool odd = (fast & 1) != 0;
  g.add_mask = {_mm_setzero_si128(), _mm_setzero_si128()};
  if (odd) {
    const uint32_t t1 = pre[7] + bsig1(pre[4]) + ((pre[4] & pre[5]) ^ (~pre[4] & pre[6])) + K[fast];
    const uint32_t t2 = bsig0(pre[0]) + ((pre[0] & pre[1]) ^ (pre[0] & pre[2]) ^ (pre[1] & pre[2]));
    const uint32_t after[8] = {t1 + t2, pre[0], pre[1], pre[2], pre[3] + t1, pre[4], pre[5], pre[6]};
    for (int i = 0; i < 8; i++) pre[i] = after[i];
    g.add_mask.abef = _mm_set_epi32(-1, 0, -1, 0);  // lanes of a and e in ABEF
  }
  const int round = odd ? fast + 1 : fast;
  g.quad = round / 4;
  g.half = (round & 2) != 0;
  g.state = to_sha(pre);
  // Entering a quad's second sha256rnds2, the ABEF operand is the first's
  // result, so the registers trade places (the word's mask with them).
  if (g.half) {
    std::swap(g.state.abef, g.state.cdgh);
    std::swap(g.add_mask.abef, g.add_mask.cdgh);
  }
  g.word_quad = fast / 4;
  const int lane = fast & 3;
  g.slot = _mm_set_epi32(lane == 3 ? -1 : 0, lane == 2 ? -1 : 0, lane == 1 ? -1 : 0, lane == 0 ? -1 : 0);
  for (int i = 0; i < 4; i++)
    g.base[i] = _mm_set_epi32(int(w[4 * i + 3]), int(w[4 * i + 2]), int(w[4 * i + 1]), int(w[4 * i]));
  g.base[g.word_quad] = _mm_andnot_si128(g.slot, g.base[g.word_quad]);
  g.word_base = g.base[g.word_quad];
  return g;
}

// Candidate `word`'s message quad holding the word, and its starting state.
POWPRIME_SHANI inline __m128i word_quad(const GroupStart& g, uint32_t word) {
  return _mm_or_si128(g.word_base, _mm_and_si128(g.slot, _mm_set1_epi32(int(word))));
}
POWPRIME_SHANI inline ShaState lane_state(const GroupStart& g, uint32_t word) {
  const __m128i v = _mm_set1_epi32(int(word));
  return {_mm_add_epi32(g.state.abef, _mm_and_si128(g.add_mask.abef, v)),
          _mm_add_epi32(g.state.cdgh, _mm_and_si128(g.add_mask.cdgh, v))};
}

// Rounds of quads g.quad..3, whose message words need no schedule.
template <int N>
POWPRIME_SHANI inline void opening_quads(const GroupStart& g, ShaState (&st)[N], const __m128i (&ring)[4][N]) {
  int i = g.quad;
  if (g.half) {
    const __m128i k = kquad(i);
    for (int l = 0; l < N; l++)
      st[l].abef = _mm_sha256rnds2_epu32(st[l].abef, st[l].cdgh, _mm_shuffle_epi32(_mm_add_epi32(ring[i][l], k), 0x0E));
    i++;
  }
  for (; i < 4; i++) quad<N>(st, ring[i], i);
}

// Lowest lane of the batch at t whose first digest word passes mask0, or -1.
template <int N>
POWPRIME_SHANI inline int64_t first_hit(const ShaState (&st)[N], const uint32_t mid[8], uint32_t t, uint32_t last,
                                        uint32_t mask0) {
  for (int l = 0; l < N; l++) {
    const uint32_t h0 = uint32_t(_mm_extract_epi32(st[l].abef, 3)) + mid[0];
    if ((h0 & mask0) == 0 && t + l <= last) return int64_t(t + l);
  }
  return -1;
}

// Quads 4..15 for the wide search: the loop unrolled by two, not whole, so
// the ring stays in memory and the registers hold only the lanes' state. Of
// one, two and twelve, two measured fastest on Zen 5 (by 1-4%).
template <int N>
POWPRIME_SHANI inline void later_quads_paired(ShaState (&st)[N], __m128i (&ring)[4][N]) {
#pragma GCC unroll 2
  for (int i = 4; i < 16; i++) {
    next_quad<N>(ring, i);
    quad<N>(st, ring[i & 3], i);
  }
}

// The group search on Lanes candidates at a time, quads 4..15 run by Later.
// The schedule writes over the ring's quads 0-3, so after a batch those are
// set again; the word's quad is set anew for each batch anyway.
template <int Lanes, void (*Later)(ShaState (&)[Lanes], __m128i (&)[4][Lanes])>
POWPRIME_SHANI int64_t search_lanes(const uint32_t mid[8], const uint32_t w16[16], int fast, const uint32_t* table,
                                    uint32_t from, uint32_t to, uint32_t mask0) {
  const GroupStart g = group_start(mid, w16, fast);
  const uint32_t last = to - 1;
  __m128i ring[4][Lanes];
  for (int i = 0; i < 4; i++)
    for (int l = 0; l < Lanes; l++) ring[i][l] = g.base[i];
  for (uint32_t t = from; t < to; t += Lanes) {
    ShaState st[Lanes];
    for (int l = 0; l < Lanes; l++) {
      // Past the end of the range a lane repeats the last candidate; its result is ignored.
      const uint32_t word = table[t + l <= last ? t + l : last];
      ring[g.word_quad][l] = word_quad(g, word);
      st[l] = lane_state(g, word);
    }
    opening_quads<Lanes>(g, st, ring);
    Later(st, ring);
    if (const int64_t hit = first_hit<Lanes>(st, mid, t, last, mask0); hit >= 0) return hit;
    for (int i = 0; i < 4; i++)
      if (i != g.word_quad)
        for (int l = 0; l < Lanes; l++) ring[i][l] = g.base[i];
  }
  return -1;
}

const BlockHasher kShaniHasher = {"sha-ni", compress};
// Two lanes keep the message schedule in registers, all quads unrolled; five
// keep it in memory (later_quads_paired).
const PowGroupSearcher kShaniSearcher = {"sha-ni", "sha-ni x2", search_lanes<2, later_quads<2>>};
const PowGroupSearcher kShani5Searcher = {"sha-ni-x5", "sha-ni x5", search_lanes<5, later_quads_paired<5>>};

}  // namespace

const BlockHasher* shani_hasher() { return &kShaniHasher; }
const PowGroupSearcher* shani_searcher() { return &kShaniSearcher; }
const PowGroupSearcher* shani5_searcher() { return &kShani5Searcher; }

}  // namespace powprime::sha256

#else
namespace powprime::sha256 {
const BlockHasher* shani_hasher() { return nullptr; }
const PowGroupSearcher* shani_searcher() { return nullptr; }
const PowGroupSearcher* shani5_searcher() { return nullptr; }
}  // namespace powprime::sha256
#endif
