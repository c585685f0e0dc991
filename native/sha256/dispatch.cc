#include "dispatch.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <utility>

#include "../cpu_features.h"
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

// The group search must find the same candidates as the scalar one, on both
// group shapes and on ranges that do not fill whole lane batches.
bool searcher_self_test(const PowGroupSearcher& k) {
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

template <class Slot>
void admit(const Slot* kernel, bool runs, const char* missing, bool (*self_test)(const Slot&),
           std::vector<const Slot*>& usable, std::vector<std::string>& refused) {
  if (!kernel) return;
  if (!runs)
    refused.push_back(std::string(kernel->id) + ": " + missing);
  else if (!self_test(*kernel))
    refused.push_back(std::string(kernel->id) + ": self-test failed");
  else
    usable.push_back(kernel);
}

// Candidates per second of one searcher on one thread in one short run on
// groups that never match (so every candidate is hashed): well under a
// millisecond for a SIMD kernel. A searcher's speed depends on which message
// word changes (the nonce's length decides it), so the run times the
// earliest, a middle and the latest word the canonical order uses, and the
// rate is over all three: the kernel that wins is the one users see on every
// layout, not on one.
double time_searcher_once(const PowGroupSearcher& k) {
  constexpr uint32_t kCandidates = 1 << 12;
  constexpr int kFast[] = {2, 7, 13};
  static const std::vector<uint32_t> table = [] {
    std::vector<uint32_t> t(kCandidates);
    for (uint32_t i = 0; i < kCandidates; i++) t[i] = 0x30303030u + i;
    return t;
  }();
  uint32_t w[16] = {};
  for (int i = 0; i < 16; i++) w[i] = 0x61626364u + uint32_t(i);
  const auto t0 = std::chrono::steady_clock::now();
  bool hit = false;
  for (int fast : kFast) hit |= k.search_group(IV, w, fast, table.data(), 0, kCandidates, 0xffffffffu) >= 0;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // A hit on an all-ones mask means a digest word of zero: astronomically
  // unlikely, and a timing cut short; count such a run as slow.
  return !hit && s > 0 ? kCandidates * std::size(kFast) / s : 0;
}

// Best rate of each searcher over `rounds` rounds that take every searcher in
// turn: a burst of other work on a shared machine then slows one round of
// all of them, not every run of one (two kernels a few percent apart would
// otherwise swap places from one process to the next).
std::vector<double> time_searchers(const std::vector<const PowGroupSearcher*>& ks, int rounds) {
  std::vector<double> best(ks.size(), 0);
  for (int r = 0; r < rounds; r++)
    for (size_t i = 0; i < ks.size(); i++) best[i] = std::max(best[i], time_searcher_once(*ks[i]));
  return best;
}

struct Registry {
  std::vector<const BlockHasher*> hashers;
  std::vector<const PowGroupSearcher*> searchers;
  // Measured rate of each usable searcher, in the order of `searchers`.
  std::vector<double> rates;
  std::vector<std::string> refused;
  Registry() {
    const CpuFeatures& cpu = cpu_features();
    admit(shani_hasher(), cpu.sha_ni, "CPU lacks SHA-NI", hasher_self_test, hashers, refused);
    admit(armv8_hasher(), cpu.arm_sha2, "CPU lacks the ARMv8 SHA-2 instructions", hasher_self_test, hashers, refused);
    hashers.push_back(&kScalarHasher);
    // A searcher refused for the same reason as its hasher is reported once.
    std::vector<std::string> searcher_refused;
    admit(shani_searcher(), cpu.sha_ni, "CPU lacks SHA-NI", searcher_self_test, searchers, searcher_refused);
    admit(shani4_searcher(), cpu.sha_ni, "CPU lacks SHA-NI", searcher_self_test, searchers, searcher_refused);
    admit(avx512_searcher(), cpu.avx512f, "CPU lacks AVX-512F", searcher_self_test, searchers, searcher_refused);
    admit(avx512_lean_searcher(), cpu.avx512f, "CPU lacks AVX-512F", searcher_self_test, searchers, searcher_refused);
    admit(avx2_searcher(), cpu.avx2, "CPU lacks AVX2", searcher_self_test, searchers, searcher_refused);
    admit(armv8_searcher(), cpu.arm_sha2, "CPU lacks the ARMv8 SHA-2 instructions", searcher_self_test, searchers,
          searcher_refused);
    // Which SIMD searcher is fastest depends on the core (lane counts, and
    // parts that down-clock under wide vectors), so they are timed, not
    // ranked by a fixed order. Scalar stays last whatever its timing.
    std::vector<std::pair<double, const PowGroupSearcher*>> timed;
    const std::vector<double> measured = time_searchers(searchers, 7);
    for (size_t i = 0; i < searchers.size(); i++) timed.emplace_back(measured[i], searchers[i]);
    std::stable_sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    searchers.clear();
    for (const auto& [rate, k] : timed) {
      searchers.push_back(k);
      rates.push_back(rate);
    }
    searchers.push_back(&kScalarSearcher);
    rates.push_back(time_searcher_once(kScalarSearcher));  // reported only
    prefer_requested();
    for (const std::string& r : searcher_refused)
      if (std::find(refused.begin(), refused.end(), r) == refused.end()) refused.push_back(r);
  }

  // POWPRIME_POW_KERNEL=<id> puts that usable searcher first, so a figure
  // without a faster kernel (AVX-512 on a CPU that has it) can be measured
  // on the same machine. A value naming no usable kernel changes nothing;
  // the TS loader warns about it, where warnings are emitted.
  void prefer_requested() {
    const char* want = std::getenv("POWPRIME_POW_KERNEL");
    if (!want || !*want) return;
    for (size_t i = 0; i < searchers.size(); i++) {
      if (std::strcmp(searchers[i]->id, want) != 0) continue;
      std::rotate(searchers.begin(), searchers.begin() + i, searchers.begin() + i + 1);
      std::rotate(rates.begin(), rates.begin() + i, rates.begin() + i + 1);
      return;
    }
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

}  // namespace

const std::vector<const BlockHasher*>& usable_hashers() { return registry().hashers; }
const std::vector<const PowGroupSearcher*>& usable_searchers() { return registry().searchers; }
const std::vector<std::string>& refused_kernels() { return registry().refused; }
const BlockHasher& best_hasher() { return *registry().hashers.front(); }
const PowGroupSearcher& best_searcher() { return *registry().searchers.front(); }

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
