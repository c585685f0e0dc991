// The deep sieve's prime tables: every prime from kDenseSieveLimit below a
// limit (2^22, 2^25, 2^28, 2^30, 2^31 or kSieveLimit), built once per process on
// first use and read by every sieve of the process.
//
// A table is a bitmap of odd numbers (bit i: 2i + 1 is prime), not an array
// of primes: a bit per odd number is 1/16 of a byte a number (64 MB to 2^30,
// 128 MB to 2^31, 256 MB to 2^32), where four bytes a prime came to 216, 420
// and 813 MB, and the
// first touch of that memory cost as much as the sieve that filled it. A
// reader walks it with a PrimeCursor, which decodes primes a chunk at a time
// (about a nanosecond a prime, against microseconds of work a prime after).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "huge_pages.h"
#include "stop_flag.h"

namespace powprime::bignum {

class PrimeTable {
 public:
  // Primes of the table below x (x ≤ limit): the place x would take in the table's order.
  size_t count_below(uint64_t x) const;

 private:
  friend class PrimeCursor;
  friend class PrimeTableBuilder;
  static constexpr size_t kBlockWords = 4096;  // words a prefix count covers: a build's segment
  std::vector<uint64_t, HugePageAllocator<uint64_t>> bits_;
  std::vector<uint64_t> before_;  // primes in the words before block b (kBlockWords words a block)
};

// The table's primes in [lo, hi), in increasing order, a chunk at a time.
class PrimeCursor {
 public:
  PrimeCursor(const PrimeTable& t, uint64_t lo, uint64_t hi);
  // The next primes, at most `cap` of them (cap ≥ 64), into out; 0 once all are out.
  size_t next(uint32_t* out, size_t cap);

 private:
  const uint64_t* bits_;
  uint64_t i_, end_;  // bit positions: odd numbers 2i + 1 in [2·i_ + 1, 2·end_ + 1)
};

// The limit of the table a sieve to `limit` (≤ kSieveLimit) reads: the
// smallest of the six at or above it.
uint64_t deep_table_limit(uint64_t limit);
// A table holding every prime from kDenseSieveLimit below deep_table_limit(limit):
// that one, or a deeper one already whole (readers bound their own ranges,
// so the primes above their limit go unread). Null when `stop` was raised before the
// table was whole: a build sees it between segments, and the next call
// carries on. Tables are kept for the process's life, so a process that
// went shallow, then deep, holds both (src/prime/sieve-depth.ts counts them).
const PrimeTable* deep_sieve_primes(uint64_t limit, StopFlag stop);

}  // namespace powprime::bignum
