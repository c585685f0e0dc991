#include "pow_search.h"

#include <algorithm>
#include <cstring>

namespace powprime::sha256 {
namespace {

struct FastTables : PowFastWords {
  FastTables() {
    for (uint32_t t = 0; t < 10000; t++)
      four[t] = (uint32_t('0' + t / 1000) << 24) | (uint32_t('0' + t / 100 % 10) << 16) |
                (uint32_t('0' + t / 10 % 10) << 8) | uint32_t('0' + t % 10);
    for (uint32_t t = 0; t < 1000; t++)
      three[t] =
          (uint32_t('0' + t / 100) << 24) | (uint32_t('0' + t / 10 % 10) << 16) | (uint32_t('0' + t % 10) << 8) | 0x80u;
  }
};

const FastTables& tables() {
  static const FastTables t;
  return t;
}

bool meets(const uint32_t h[8], uint32_t difficulty) {
  for (uint32_t i = 0; i < difficulty; i++)
    if ((h[i / 8] >> (28 - 4 * (i % 8))) & 0xF) return false;
  return true;
}

// Digits of the final block's fast word: the last 4 (or 3, then the 0x80
// padding byte) message bytes, so one group is 10^4 (or 10^3) candidates.
uint32_t pow_group_size(uint32_t digits_end) { return digits_end % 4 == 0 ? 10000 : 1000; }

}  // namespace

const PowFastWords& pow_fast_words() { return tables(); }

uint64_t pow_search(const PowGroupSearcher& searcher, const PowJob& job, uint64_t k_start, uint64_t k_end) {
  const uint32_t group = pow_group_size(job.digits_end);
  const uint32_t* table = group == 10000 ? tables().four : tables().three;
  const int fast = int((job.digits_end - 1) / 4);
  const uint32_t mask0 = job.difficulty >= 8   ? 0xFFFFFFFFu
                         : job.difficulty == 0 ? 0u
                                               : ~0u << (32 - 4 * job.difficulty);
  uint8_t block[64];
  std::memcpy(block, job.block, 64);
  uint64_t k = k_start;
  while (k < k_end) {
    const uint64_t base = k - k % group;
    uint64_t v = base;
    for (uint32_t i = 0; i < job.digits_count; i++, v /= 10) block[job.digits_end - 1 - i] = uint8_t('0' + v % 10);
    uint32_t w[16];
    for (int t = 0; t < 16; t++) w[t] = load_be32(block + 4 * t);
    uint32_t from = uint32_t(k - base);
    const uint32_t to = uint32_t(std::min<uint64_t>(k_end - base, group));
    while (from < to) {
      const int64_t t = searcher.search_group(job.mid, w, fast, table, from, to, mask0);
      if (t < 0) break;
      // The kernel only looked at the first digest word; beyond 8 characters
      // the rest is checked here on the rare candidate that gets this far.
      uint32_t h[8];
      std::memcpy(h, job.mid, sizeof h);
      w[fast] = table[t];
      uint8_t full[64];
      for (int i = 0; i < 16; i++) store_be32(full + 4 * i, w[i]);
      kScalarHasher.compress(h, full, 1);
      if (meets(h, job.difficulty)) return base + uint64_t(t);
      from = uint32_t(t) + 1;
    }
    k = base + to;
  }
  return kPowNotFound;
}

}  // namespace powprime::sha256
