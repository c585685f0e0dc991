// Proof-of-work range search over the canonical candidate order (the order
// itself is defined in src/pow/order.ts; this file only walks a range of it).
#pragma once
#include <cstdint>

#include "sha256.h"

namespace powprime::sha256 {

struct PowJob {
  uint32_t mid[8];        // state after every block before the final one
  uint8_t block[64];      // final block: constant bytes, 0x80 padding and length
  uint32_t digits_end;    // one past the last digit in block; % 4 is 0 or 3
  uint32_t digits_count;  // how many low decimal digits of k sit in block
  uint32_t difficulty;    // leading '0' hex characters required, 0..64
};

// Fast-word values for candidate t of a group: t as 4 digits, or as 3 digits
// followed by the 0x80 padding byte. Built once, shared by every search;
// mirrored by FOUR and THREE in src/pow/kernel.ts.
struct PowFastWords {
  uint32_t four[10000];
  uint32_t three[1000];
};
const PowFastWords& pow_fast_words();

// What pow_search returns when no candidate of the range meets the
// difficulty. Counters go up to 10^19 - 1, above 2^63, so "not found" cannot
// be a negative number; no counter reaches this one.
constexpr uint64_t kPowNotFound = ~uint64_t(0);

// Lowest k in [k_start, k_end) whose candidate meets the difficulty, or
// kPowNotFound. The caller keeps the range inside one window of
// 10^digits_count, since higher digits of k are part of mid.
uint64_t pow_search(const PowGroupSearcher& searcher, const PowJob& job, uint64_t k_start, uint64_t k_end);

}  // namespace powprime::sha256
