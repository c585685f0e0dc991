#include "dispatch.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <utility>

#include "../kernel_table.h"
#include "pow_search.h"

namespace powprime::sha256 {

void hash(const BlockHasher& hasher, const uint8_t* data, size_t len, uint8_t out[32]) {
  uint32_t h[8];
  std::memcpy(h, IV, sizeof h);
  const size_t whole = len / 64;
  hasher.compress(h, data, whole);
  uint8_t tail[128] = {};
  const size_t rest = len - whole * 64;
  // An empty message may come with data == nullptr, and memcpy from null is
  // undefined even for zero bytes.
  if (rest) std::memcpy(tail, data + whole * 64, rest);
  tail[rest] = 0x80;
  const size_t tail_blocks = rest + 9 <= 64 ? 1 : 2;
  const uint64_t bits = uint64_t(len) * 8;
  for (int i = 0; i < 8; i++) tail[tail_blocks * 64 - 1 - i] = uint8_t(bits >> (8 * i));
  hasher.compress(h, tail, tail_blocks);
  for (int i = 0; i < 8; i++) store_be32(out + 4 * i, h[i]);
}

namespace {

// FIPS 180-2 example: SHA-256("abc").
const uint8_t kAbcDigest[32] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
                                0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
                                0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};

bool hasher_self_test(const BlockHasher& k) {
  uint8_t out[32];
  hash(k, reinterpret_cast<const uint8_t*>("abc"), 3, out);
  return std::memcmp(out, kAbcDigest, 32) == 0;
}

// A short group of every changing word, for the self-test below: the
// candidates' words, and each word's hits in order by the scalar searcher
// (computed once for all the kernels tested against it).
struct WordCheck {
  static constexpr uint32_t kCandidates = 101;
  static constexpr uint32_t kMask = 0xe0000000u;  // about one candidate in eight passes
  uint32_t table[kCandidates];
  uint32_t w16[16];
  std::array<std::vector<int64_t>, kPowWords> hits;
  WordCheck() {
    for (uint32_t i = 0; i < kCandidates; i++) table[i] = 0x30303030u + (i * 0x01030507u & 0x09090909u);
    for (uint32_t i = 0; i < 16; i++) w16[i] = 0x61626364u + 0x01010101u * i;
    for (int fast = 0; fast < kPowWords; fast++) hits[fast] = hits_of(kScalarSearcher, fast);
  }
  // Every hit of the range in turn, each search resuming after the last.
  std::vector<int64_t> hits_of(const PowGroupSearcher& k, int fast) const {
    std::vector<int64_t> out;
    for (int64_t got = -1; (got = k.search_group(IV, w16, fast, table, uint32_t(got + 1), kCandidates, kMask)) >= 0;)
      out.push_back(got);
    return out;
  }
};

// The group search must find the same candidates as the scalar one: on every
// changing word (kernels take a different path by the word's place in its
// quad and by its quad), every hit of a short range in turn; and through
// pow_search on ranges that do not fill whole lane batches.
bool searcher_self_test(const PowGroupSearcher& k) {
  static const WordCheck check;
  for (int fast = 0; fast < kPowWords; fast++)
    if (check.hits_of(k, fast) != check.hits[fast]) return false;
  for (uint32_t end : {52u, 55u}) {
    PowJob job{};
    std::memcpy(job.mid, IV, sizeof job.mid);
    for (uint32_t i = 0; i < end; i++) job.block[i] = uint8_t('a' + i % 26);
    job.block[end] = 0x80;
    job.block[62] = uint8_t((end * 8) >> 8);
    job.block[63] = uint8_t(end * 8);
    job.digits_end = end;
    job.digits_count = 12;
    job.difficulty = 2;
    for (uint64_t start : {0ull, 3ull, 9997ull, 123457ull}) {
      if (pow_search(k, job, start, start + 5003) != pow_search(kScalarSearcher, job, start, start + 5003))
        return false;
    }
  }
  return true;
}

bool has_sha_ni(const CpuFeatures& cpu) { return cpu.sha_ni; }
bool has_arm_sha2(const CpuFeatures& cpu) { return cpu.arm_sha2; }
bool has_avx2(const CpuFeatures& cpu) { return cpu.avx2; }
bool has_avx512f(const CpuFeatures& cpu) { return cpu.avx512f; }
const BlockHasher* scalar_hasher() { return &kScalarHasher; }
const PowGroupSearcher* scalar_searcher() { return &kScalarSearcher; }

// The message hashers, best first (a fixed order); the scalar one is the
// floor, and the reference the others' "abc" digest is checked against.
const KernelRow<BlockHasher> kHashers[] = {
    {.name = "sha-ni",
     .supported = has_sha_ni,
     .missing = "CPU lacks SHA-NI",
     .self_test = hasher_self_test,
     .kernel = shani_hasher},
    {.name = "armv8-sha2",
     .supported = has_arm_sha2,
     .missing = "CPU lacks the ARMv8 SHA-2 instructions",
     .self_test = hasher_self_test,
     .kernel = armv8_hasher},
    {.name = "scalar", .supported = any_cpu, .missing = "", .self_test = nullptr, .kernel = scalar_hasher},
};

// The group searchers: the timing at load ranks all but the last, the
// scalar floor (the reference the others are checked against), which stays last.
const KernelRow<PowGroupSearcher> kSearchers[] = {
    {.name = "sha-ni",
     .supported = has_sha_ni,
     .missing = "CPU lacks SHA-NI",
     .self_test = searcher_self_test,
     .kernel = shani_searcher},
    {.name = "sha-ni-x5",
     .supported = has_sha_ni,
     .missing = "CPU lacks SHA-NI",
     .self_test = searcher_self_test,
     .kernel = shani5_searcher},
    {.name = "avx512",
     .supported = has_avx512f,
     .missing = "CPU lacks AVX-512F",
     .self_test = searcher_self_test,
     .kernel = avx512_searcher},
    {.name = "avx512-lean",
     .supported = has_avx512f,
     .missing = "CPU lacks AVX-512F",
     .self_test = searcher_self_test,
     .kernel = avx512_lean_searcher},
    {.name = "avx2",
     .supported = has_avx2,
     .missing = "CPU lacks AVX2",
     .self_test = searcher_self_test,
     .kernel = avx2_searcher},
    {.name = "armv8-sha2",
     .supported = has_arm_sha2,
     .missing = "CPU lacks the ARMv8 SHA-2 instructions",
     .self_test = searcher_self_test,
     .kernel = armv8_searcher},
    {.name = "scalar", .supported = any_cpu, .missing = "", .self_test = nullptr, .kernel = scalar_searcher},
};

// The spare copy of the avx512 code (avx512.cc), admitted on its own: it is
// ranked as part of the avx512 searcher, not beside it (the two would swap
// places on noise), and listed right after it.
const KernelRow<PowGroupSearcher> kSpare = {
    .name = "avx512-spare",
    .supported = has_avx512f,
    .missing = "CPU lacks AVX-512F",
    .self_test = searcher_self_test,
    .kernel = avx512_spare_searcher,
};

constexpr uint32_t kTimedCandidates = 1 << 12;

// Seconds one searcher takes over kTimedCandidates candidates of changing
// word `fast` on one thread, in a group that never matches (so every
// candidate is hashed): well under a millisecond for a SIMD kernel. A hit on
// an all-ones mask means a digest word of zero: astronomically unlikely, and
// a timing cut short; such a run counts as endless.
double seconds_on_word(const PowGroupSearcher& k, int fast) {
  static const std::vector<uint32_t> table = [] {
    std::vector<uint32_t> t(kTimedCandidates);
    for (uint32_t i = 0; i < kTimedCandidates; i++) t[i] = 0x30303030u + i;
    return t;
  }();
  uint32_t w[16] = {};
  for (int i = 0; i < 16; i++) w[i] = 0x61626364u + uint32_t(i);
  const auto t0 = std::chrono::steady_clock::now();
  const bool hit = k.search_group(IV, w, fast, table.data(), 0, kTimedCandidates, 0xffffffffu) >= 0;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return hit || s <= 0 ? HUGE_VAL : s;
}

// Candidates per second of one searcher in one short run. A searcher's speed
// depends on which message word changes (the nonce's length decides it), so
// the run times the earliest, a middle and the latest word the canonical
// order uses, and the rate is over all three: the kernel that wins is the one
// users see on every layout, not on one. With a `copy` (the same code at
// other addresses), each word counts the faster of the two: plan_words runs
// each word on the copy that runs it well, so the shape is ranked by that.
double time_searcher_once(const PowGroupSearcher& k, const PowGroupSearcher* copy = nullptr) {
  constexpr int kFast[] = {2, 7, 13};
  double s = 0;
  for (int fast : kFast)
    s += copy ? std::min(seconds_on_word(k, fast), seconds_on_word(*copy, fast)) : seconds_on_word(k, fast);
  return kTimedCandidates * std::size(kFast) / s;
}

// Best rate of each searcher over `rounds` rounds that take every searcher in
// turn: a burst of other work on a shared machine then slows one round of
// all of them, not every run of one (two kernels a few percent apart would
// otherwise swap places from one process to the next). `copy` is timed with
// `copy_of`, see time_searcher_once.
std::vector<double> time_searchers(const std::vector<const PowGroupSearcher*>& ks, int rounds,
                                   const PowGroupSearcher* copy_of, const PowGroupSearcher* copy) {
  std::vector<double> best(ks.size(), 0);
  for (int r = 0; r < rounds; r++)
    for (size_t i = 0; i < ks.size(); i++)
      best[i] = std::max(best[i], time_searcher_once(*ks[i], ks[i] == copy_of ? copy : nullptr));
  return best;
}

// A changing word's instance far below its searcher's other words (this
// fraction of their median) is a misplaced one, see plan_words.
constexpr double kSlowWord = 0.7;

int64_t search_planned(const uint32_t mid[8], const uint32_t w[16], int fast, const uint32_t* table, uint32_t from,
                       uint32_t to, uint32_t mask0);

struct Registry {
  std::vector<const BlockHasher*> hashers;
  std::vector<const PowGroupSearcher*> searchers;
  // Which searcher runs each changing word for best_searcher(): the first
  // one's instance unless plan_words moved it. `planned` forwards to these.
  std::array<const PowGroupSearcher*, kPowWords> by_word{};
  std::string planned_name;
  PowGroupSearcher planned{};
  // Measured rate of each usable searcher, in the order of `searchers`.
  std::vector<double> rates;
  std::vector<std::string> refused;
  Registry() {
    const CpuFeatures& cpu = cpu_features();
    Admitted<BlockHasher> h = admit(kHashers, cpu);
    hashers = std::move(h.usable);
    refused = std::move(h.refused);
    Admitted<PowGroupSearcher> s = admit(kSearchers, cpu);
    searchers = std::move(s.usable);
    searchers.pop_back();  // the scalar floor: not timed, appended last below
    // A searcher refused for the same reason as its hasher is reported once.
    std::vector<std::string> searcher_refused = std::move(s.refused);
    Admitted<PowGroupSearcher> spares;
    admit_row(kSpare, cpu, spares);
    const PowGroupSearcher* spare = spares.usable.empty() ? nullptr : spares.usable.front();
    searcher_refused.insert(searcher_refused.end(), spares.refused.begin(), spares.refused.end());
    const PowGroupSearcher* spare_of = avx512_searcher();
    if (spare && std::find(searchers.begin(), searchers.end(), spare_of) == searchers.end()) {
      searchers.push_back(spare);  // its original failed its self-test: ranked on its own
      spare = nullptr;
    }
    // Which SIMD searcher is fastest depends on the core (lane counts, and
    // parts that down-clock under wide vectors), so they are timed, not
    // ranked by a fixed order. Scalar stays last whatever its timing.
    std::vector<std::pair<double, const PowGroupSearcher*>> timed;
    const std::vector<double> measured = time_searchers(searchers, 7, spare_of, spare);
    for (size_t i = 0; i < searchers.size(); i++) timed.emplace_back(measured[i], searchers[i]);
    std::stable_sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    searchers.clear();
    for (const auto& [rate, k] : timed) {
      searchers.push_back(k);
      rates.push_back(rate);
      if (k != spare_of || !spare) continue;
      searchers.push_back(spare);
      rates.push_back(time_searcher_once(*spare));  // reported only
    }
    searchers.push_back(&kScalarSearcher);
    rates.push_back(time_searcher_once(kScalarSearcher));  // reported only
    if (!prefer_requested()) plan_words();
    for (const std::string& r : searcher_refused)
      if (std::find(refused.begin(), refused.end(), r) == refused.end()) refused.push_back(r);
  }

  // POWPRIME_POW_KERNEL=<id> puts that usable searcher first, so a figure
  // without a faster kernel (AVX-512 on a CPU that has it) can be measured
  // on the same machine. A value naming no usable kernel changes nothing;
  // the TS loader warns about it, where warnings are emitted. Returns
  // whether it named one.
  bool prefer_requested() {
    const char* want = std::getenv("POWPRIME_POW_KERNEL");
    if (!want || !*want) return false;
    for (size_t i = 0; i < searchers.size(); i++) {
      if (std::strcmp(searchers[i]->id, want) != 0) continue;
      std::rotate(searchers.begin(), searchers.begin() + i, searchers.begin() + i + 1);
      std::rotate(rates.begin(), rates.begin() + i, rates.begin() + i + 1);
      return true;
    }
    return false;
  }

  // On Zen 5 hosts one of the 14 AVX-512 instances ran at half the speed of
  // the others in some copies of the same library file, in every process
  // that loaded that copy, and at full speed in the other copies: it follows
  // where that instance's code lands in memory, not its layout, so no kernel
  // shape avoids it. (Those hosts also slowed every word at once, for
  // seconds to minutes, with the code in place: work from outside the guest,
  // which no plan here can route around.) Each word of the first searcher is
  // timed (best of three, about 1 ms in all), and a word below kSlowWord of
  // their median runs on the other SIMD searcher whose instance of it is
  // fastest, where that is faster by a fifth: the spare copy of the same code
  // (avx512.cc) when it landed well, else another shape. Naming a kernel with
  // POWPRIME_POW_KERNEL skips this: that kernel runs unmixed.
  void plan_words() {
    by_word.fill(searchers.front());
    if (searchers.size() < 3) return;  // one SIMD searcher and scalar: nothing to move to
    const PowGroupSearcher& first = *searchers[0];
    std::array<double, kPowWords> best{};
    for (int r = 0; r < 3; r++)
      for (int w = 0; w < kPowWords; w++) best[size_t(w)] = std::max(best[size_t(w)], 1 / seconds_on_word(first, w));
    std::array<double, kPowWords> sorted = best;
    std::nth_element(sorted.begin(), sorted.begin() + kPowWords / 2, sorted.end());
    const double median = sorted[kPowWords / 2];
    std::string moved;
    for (int w = 0; w < kPowWords; w++) {
      if (best[size_t(w)] >= kSlowWord * median) continue;
      const PowGroupSearcher* to = nullptr;
      double to_rate = 1.2 * best[size_t(w)];
      for (size_t i = 1; i + 1 < searchers.size(); i++) {  // the last is scalar
        double alt = 0;
        for (int r = 0; r < 3; r++) alt = std::max(alt, 1 / seconds_on_word(*searchers[i], w));
        if (alt > to_rate) to = searchers[i], to_rate = alt;
      }
      if (!to) continue;
      by_word[size_t(w)] = to;
      moved += std::string(moved.empty() ? "" : ", ") + std::to_string(w) + " on " + to->id;
    }
    if (moved.empty()) return;
    planned_name = std::string(first.name) + " (word " + moved + ")";
    planned = {first.id, planned_name.c_str(), search_planned};
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

int64_t search_planned(const uint32_t mid[8], const uint32_t w[16], int fast, const uint32_t* table, uint32_t from,
                       uint32_t to, uint32_t mask0) {
  return registry().by_word[size_t(fast)]->search_group(mid, w, fast, table, from, to, mask0);
}

}  // namespace

const std::vector<const BlockHasher*>& usable_hashers() { return registry().hashers; }
const std::vector<const PowGroupSearcher*>& usable_searchers() { return registry().searchers; }
const std::vector<std::string>& refused_kernels() { return registry().refused; }
const BlockHasher& best_hasher() { return *registry().hashers.front(); }
const PowGroupSearcher& best_searcher() {
  const Registry& r = registry();
  return r.planned.search_group ? r.planned : *r.searchers.front();
}

double searcher_rate(const PowGroupSearcher& k) {
  const Registry& r = registry();
  for (size_t i = 0; i < r.searchers.size(); i++)
    if (r.searchers[i] == &k) return r.rates[i];
  return 0;
}

const BlockHasher* hasher_by_name(const std::string& name) {
  for (const BlockHasher* k : registry().hashers)
    if (name == k->id) return k;
  return nullptr;
}

const PowGroupSearcher* searcher_by_name(const std::string& name) {
  for (const PowGroupSearcher* k : registry().searchers)
    if (name == k->id) return k;
  return nullptr;
}

}  // namespace powprime::sha256
