// The deep tier's far primes for a block of consecutive starts. Stream v2
// starts index i at start_0 + 12·M·i (M = 4·bits² candidates), and a search
// only strikes the first W candidates of each index (the deep window, M/8 up
// to 8192 bits). A prime r ≥ M hits an index's window at most once a root,
// with odds about W/r: striking it index by index means a pass over every
// far prime per index (a root shifted, two compares), most of them for
// nothing, and that pass was what kept the sieve from going deeper.
//
// A block instead takes `slots` consecutive starts base + 12·M·k together.
// Its roots (t0 per far prime, relative to base) are computed once (or
// shifted from the block before); for each root, the positions x ≡ root
// (mod r) below slots·M are walked (x = root, root + r, …: slots·M/r + 1
// steps, one for most primes), and those landing in a window (x mod M < W)
// set a bit of slot ⌊x/M⌋'s window. A block of 64 slots costs about one
// pass over the far primes for 64 indexes, plus M·Σ 2/r steps an index
// (2^24·2·0.26 at 2048 bits to 2^31): the depth then costs little per
// index, and what remains is the roots' first computation, once a run
// (twice in a run of two blocks, see t0_).
//
// Memory: 4 bytes a far prime (roots, kept while the run goes on for two
// more blocks) and slots·W/8 bytes (windows), both held by the block, which
// the sieves of its slots share (safe_prime_sieve.h).
#pragma once
#include <cstdint>
#include <vector>

#include "limbs.h"
#include "small_primes.h"
#include "stop_flag.h"

namespace powprime::bignum {

class FarBlock {
 public:
  // `ahead` when the run's end is not known.
  static constexpr uint64_t kNoEnd = UINT64_MAX;
  // The windows' bits in all, at most: fewer slots than asked when they would pass it.
  static constexpr uint64_t kMaxWindowBits = uint64_t(1) << 31;

  // Far primes: those of the deep table below `limit` from `spacing` up
  // (spacing > window). base ≡ 11 (mod 12); slot k starts at base + 12·spacing·k.
  // ahead: the run's index positions from base's on, base's included
  // (DeepPlan), or kNoEnd: the block keeps its roots for the blocks after it
  // when they go past twice its slots (see t0_).
  FarBlock(const u64* base, int limbs, uint64_t limit, uint64_t spacing, uint32_t slots, uint64_t window,
           uint64_t ahead);
  // The same with base = previous base + 12·δ, the roots taken from
  // `previous` (shifted by δ when first filled) when it holds them, else
  // computed. previous is left without roots.
  FarBlock(const u64* base, int limbs, uint64_t limit, uint64_t spacing, uint32_t slots, uint64_t window,
           uint64_t ahead, FarBlock& previous, uint64_t delta);

  // The slot whose start is `start`, or -1; with δ = (start − base)/12 in
  // *delta when start lies 12·δ above base (0 < δ < kMaxShift), else 0.
  int64_t slot_of(const u64* start, int limbs, uint64_t* delta) const;
  bool same_plan(uint64_t limit, uint64_t spacing, uint64_t window, int limbs) const {
    return limit == limit_ && spacing == spacing_ && window == window_ && limbs == limbs_;
  }
  uint32_t slots() const { return slots_; }

  // Slot k's window (window bits, a set bit a struck candidate), filling
  // every slot on first call; null when `stop` was raised meanwhile (the
  // block then holds nothing, and the next call starts over from scratch).
  // Sieves of one block may live on one thread only (the pool's thread that
  // built it), so no lock.
  const uint64_t* window(uint32_t k, StopFlag stop);

  size_t memory_bytes() const;

 private:
  bool fill(StopFlag stop);

  std::vector<u64> base_;
  int limbs_;
  uint64_t limit_;
  uint64_t spacing_, window_;
  uint32_t slots_;
  // t0 per far prime (deep table order), relative to base_ − 12·pending_shift_; empty: not computed.
  // Kept after the fill only when the run goes on past two blocks from
  // this one (ahead > 2·slots; with no end known, by a block that follows
  // another, as a chain that went on is likely to go on). Keeping costs the
  // first touch of 4 bytes a far prime, measured at about 1.4 times the
  // roots' computation (Zen 5 microVM guest, 2^31 at 2048 bits: about 1.0
  // against 0.7 s a thread), and each later block then shifts them for about
  // a seventh of that instead of computing them: the touch repays from the
  // second later block on. 2 threads at 2048 bits, 128 primes (2^31, two
  // blocks a thread), core ms a prime: 336–346 when every block after the
  // first kept its roots (as before the run's end was known), 297–326 now
  // that none does.
  DeepArray t0_;
  bool keep_roots_ = false;
  uint64_t pending_shift_ = 0;
  bool filled_ = false;
  std::vector<uint64_t> bits_;  // slots_ windows of (window_ + 63) / 64 words
};

}  // namespace powprime::bignum
