#include "far_sieve.h"

#include <algorithm>
#include <cstring>

#include "../cpu_features.h"
#include "kernel_in_force.h"
#include "prime_table.h"
#include "sieve_roots.h"
#include "small_primes.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define POWPRIME_FAR_AVX512 1
#endif

namespace powprime::bignum {
namespace {

// Where a block's walk puts its hits: bit x of the windows laid end to end
// (slot k's window from bit k·words·64, below 2^31: kMaxWindowBits), struck
// after each group of primes so the walk itself stays free of scattered writes.
struct Walk {
  uint64_t span, spacing, window, words;
  double inv;  // 1/spacing
};

// The positions x ≡ root (mod r), x < span, of each root of primes [0, m)
// (roots t0 and t1), their window bits appended to hits. One prime at a time.
size_t walk_portable(const Walk& w, const uint32_t* r, const uint32_t* t0, const uint32_t* t1, size_t m,
                     uint32_t* hits) {
  size_t h = 0;
  for (size_t k = 0; k < m; k++) {
    const uint64_t p = r[k];
    for (const uint64_t root : {uint64_t(t0[k]), uint64_t(t1[k])}) {
      for (uint64_t x = root; x < w.span; x += p) {
        // x / spacing from the double quotient, corrected by one at most (x < 2^52).
        uint64_t q = uint64_t(double(x) * w.inv);
        int64_t o = int64_t(x) - int64_t(q * w.spacing);
        if (o < 0) {
          q--;
          o += int64_t(w.spacing);
        } else if (uint64_t(o) >= w.spacing) {
          q++;
          o -= int64_t(w.spacing);
        }
        hits[h] = uint32_t(q * w.words * 64 + uint64_t(o));
        h += uint64_t(o) < w.window;
      }
    }
  }
  return h;
}

#ifdef POWPRIME_FAR_AVX512
// The same, eight primes a step in doubles: positions stay below 2^52, so
// x, q·spacing and their difference are exact, and the rounded-down
// quotient is off by one at most; hits leave by a compress store.
__attribute__((target("avx512f"))) size_t walk_avx512(const Walk& w, const uint32_t* r, const uint32_t* t0,
                                                      const uint32_t* t1, size_t m, uint32_t* hits) {
  size_t h = 0;
  const __m512d span = _mm512_set1_pd(double(w.span)), spacing = _mm512_set1_pd(double(w.spacing));
  const __m512d window = _mm512_set1_pd(double(w.window)), inv = _mm512_set1_pd(w.inv);
  const __m512d row = _mm512_set1_pd(double(w.words * 64)), zero = _mm512_setzero_pd();
  size_t k = 0;
  for (; k + 8 <= m; k += 8) {
    const __m512d p = _mm512_cvtepu32_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + k)));
    for (const uint32_t* t : {t0, t1}) {
      __m512d x = _mm512_cvtepu32_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + k)));
      __mmask8 live = _mm512_cmp_pd_mask(x, span, _CMP_LT_OQ);
      while (live) {
        __m512d q = _mm512_roundscale_pd(_mm512_mul_pd(x, inv), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        __m512d o = _mm512_fnmadd_pd(q, spacing, x);
        const __mmask8 low = _mm512_cmp_pd_mask(o, zero, _CMP_LT_OQ);
        q = _mm512_mask_sub_pd(q, low, q, _mm512_set1_pd(1));
        o = _mm512_mask_add_pd(o, low, o, spacing);
        const __mmask8 high = _mm512_cmp_pd_mask(o, spacing, _CMP_GE_OQ);
        q = _mm512_mask_add_pd(q, high, q, _mm512_set1_pd(1));
        o = _mm512_mask_sub_pd(o, high, o, spacing);
        const __mmask8 hit = live & _mm512_cmp_pd_mask(o, window, _CMP_LT_OQ);
        const __m512i bit = _mm512_castsi256_si512(_mm512_cvttpd_epi32(_mm512_fmadd_pd(q, row, o)));
        _mm512_mask_compressstoreu_epi32(hits + h, __mmask16(hit), bit);
        h += size_t(__builtin_popcount(hit));
        x = _mm512_add_pd(x, p);
        live &= _mm512_cmp_pd_mask(x, span, _CMP_LT_OQ);
      }
    }
  }
  return h + walk_portable(w, r + k, t0 + k, t1 + k, m - k, hits + h);
}
#endif

using WalkFn = size_t (*)(const Walk&, const uint32_t*, const uint32_t*, const uint32_t*, size_t, uint32_t*);

// Follows the bignum kernel in force, as sieve_roots.cc does, so the tests
// that run a search on every kernel run both walks on an AVX-512 machine.
WalkFn pick_walk() {
#ifdef POWPRIME_FAR_AVX512
  if (std::strcmp(kernel_in_force().id, "ifma") == 0 && cpu_features().avx512f) return walk_avx512;
#endif
  return walk_portable;
}

}  // namespace

FarBlock::FarBlock(const u64* base, int limbs, uint64_t limit, uint64_t spacing, uint32_t slots, uint64_t window,
                   uint64_t ahead)
    : base_(base, base + limbs),
      limbs_(limbs),
      limit_(limit),
      spacing_(spacing),
      window_(window),
      slots_(
          uint32_t(std::clamp<uint64_t>(kMaxWindowBits / ((window + 63) / 64 * 64), 1, std::max<uint32_t>(slots, 1)))),
      keep_roots_(ahead != kNoEnd && ahead > 2 * uint64_t(slots_)) {}

FarBlock::FarBlock(const u64* base, int limbs, uint64_t limit, uint64_t spacing, uint32_t slots, uint64_t window,
                   uint64_t ahead, FarBlock& previous, uint64_t delta)
    : FarBlock(base, limbs, limit, spacing, slots, window, ahead) {
  keep_roots_ = ahead == kNoEnd || keep_roots_;
  const uint64_t shift = delta + previous.pending_shift_;
  if (delta && shift < kMaxShift && !previous.t0_.empty() && previous.same_plan(limit, spacing, window, limbs)) {
    t0_ = std::move(previous.t0_);
    pending_shift_ = shift;
  }
  release(previous.t0_);
  previous.pending_shift_ = 0;
}

int64_t FarBlock::slot_of(const u64* start, int limbs, uint64_t* delta) const {
  *delta = 0;
  uint64_t d = 0;
  if (limbs != limbs_ || !twelfths_above(start, base_.data(), limbs, &d)) return -1;
  if (d && d < kMaxShift) *delta = d;
  if (d % spacing_ != 0 || d / spacing_ >= slots_) return -1;
  return int64_t(d / spacing_);
}

const uint64_t* FarBlock::window(uint32_t k, StopFlag stop) {
  if (!filled_ && !fill(stop)) return nullptr;
  return bits_.data() + size_t(k) * size_t((window_ + 63) / 64);
}

bool FarBlock::fill(StopFlag stop) {
  const PrimeTable* table = deep_sieve_primes(limit_, stop);
  if (!table) return false;
  const uint64_t lo = std::min<uint64_t>(spacing_, limit_);
  const size_t n = table->count_below(limit_) - table->count_below(lo);
  // Roots taken from the block before are shifted where they lie, kept or not.
  const bool have_roots = t0_.size() == n;
  if (!have_roots) {
    release(t0_);
    if (keep_roots_) t0_.assign(n, 0);
  }
  const bool in_place = have_roots || keep_roots_;
  const size_t words = size_t((window_ + 63) / 64);
  bits_.assign(size_t(slots_) * words, 0);
  uint64_t* bits = bits_.data();
  const Walk walk{spacing_ * slots_, spacing_, window_, words, 1.0 / double(spacing_)};
  const WalkFn walk_fn = pick_walk();
  // Primes a group: the hits of a group fit the buffer (a root hits each slot once at most, as r > window).
  constexpr size_t kGroup = 256;
  std::vector<uint32_t> hits(kGroup * 2 * (size_t(slots_) + 1));
  constexpr size_t kChunk = 1 << 14;
  std::vector<uint32_t> r(kChunk), t1(kChunk), t0_chunk(in_place ? 0 : kChunk);
  PrimeCursor primes(*table, lo, limit_);
  for (size_t b = 0, m; b < n; b += m) {
    if (stop.raised()) {
      release(t0_);
      release(bits_);
      pending_shift_ = 0;
      return false;
    }
    m = primes.next(r.data(), kChunk);
    uint32_t* t0 = in_place ? t0_.data() + b : t0_chunk.data();
    if (have_roots)
      shift_roots(r.data(), m, pending_shift_, t0, t1.data());
    else
      sieve_roots(base_.data(), limbs_, r.data(), m, t0, t1.data());
    for (size_t g = 0; g < m; g += kGroup) {
      const size_t h = walk_fn(walk, r.data() + g, t0 + g, t1.data() + g, std::min(kGroup, m - g), hits.data());
      for (size_t i = 0; i < h; i++) bits[hits[i] / 64] |= uint64_t(1) << (hits[i] % 64);
    }
  }
  pending_shift_ = 0;
  if (!keep_roots_) release(t0_);
  filled_ = true;
  return true;
}

size_t FarBlock::memory_bytes() const {
  return sizeof(*this) + base_.capacity() * sizeof(u64) + t0_.capacity() * sizeof(uint32_t) +
         bits_.capacity() * sizeof(uint64_t);
}

}  // namespace powprime::bignum
