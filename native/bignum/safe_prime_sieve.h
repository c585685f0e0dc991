// Combined sieve for safe primes (Wiener 2003): candidates p_j = start + 12·j
// (p ≡ 11 mod 12, so 2 and 3 divide neither p nor q = (p−1)/2) are struck out
// when p ≡ 0 or p ≡ 1 modulo a small prime r, i.e. when r divides p or q.
// Survivors get base-2 Fermat on q, then on p (Pocklington's condition), then
// the full probable-prime test on q. Optionally one class of candidates is
// struck as well (Keep): p ≡ 11 (mod 24), every other j, leaving the class DH
// parameters with generator 2 need; or p ≡ 119 (mod 120), every tenth j,
// leaving the primes `ssh-keygen -M screen` gives a generator (2 or 5).
//
// Two tiers of sieve primes. The dense ones (below kDenseSieveLimit) are
// struck in every slice: a slice costs a residue of j0 per prime. The deep
// ones (up to the sieve limit) are struck once, into a bitmap over the first
// deep_window(bits) candidates from start, when a slice first reaches it: their
// residues of start are the depth's whole cost (sieve_roots.h, SIMD), paid once
// per start, and a search almost always ends inside the window (it holds about
// eight times the mean distance between safe primes). Past the window only the
// dense tier strikes. Neither tier changes which j is found, only how many
// candidates reach a test.
//
// The deep tier keeps its roots: t0 per deep prime (t1 = t0 + 12⁻¹ mod r, so
// one is enough). A sieve built from a previous one whose start lies 12·δ
// below (stream v2 starts consecutive indexes 12·M·Δ apart) shifts those roots
// by δ, one reduction a prime, instead of a multi-word residue a prime.
//
// With a DeepPlan, the deep primes from the plan's spacing up are struck by
// a far block shared by a chain of sieves (far_sieve.h) instead.
//
// Memory bound, per sieve (so per pool thread, which keeps at most one for the
// next index): 8 bytes a dense prime (52 KB), the slice's marks, the window's
// bits (at most 4 MB, at 8192 bits up), its far block's windows (the plan's
// slots, src/prime/sieve-depth.ts keeps them within 16 MiB), and 4 bytes a
// deep prime once the first search reached the window: 58.5 MB at a 2^28 limit (14,624,301
// primes), 218 MB at 2^30, 420 MB at 2^31, 813 MB at 2^32. The deep prime tables (a bit an odd number:
// 16, 64, 128 and 256 MB, prime_table.h) are shared by every sieve of the process, which keeps each one
// it built; src/prime/sieve-depth.ts (deepSieveBytes) counts every table up to the depth's and keeps the
// whole within an eighth of the machine's memory.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "far_sieve.h"
#include "fermat_vertical.h"
#include "limbs.h"
#include "stop_flag.h"

namespace powprime::bignum {

// How the caller's starts follow each other, for the deep tier's far primes
// (far_sieve.h): consecutive starts 12·spacing apart (stream v2: spacing =
// 4·bits²), about `slots` of them searched by this thread's chain of sieves
// from this one on, and the run's index positions from this one to its
// last, this one included (FarBlock::kNoEnd: no end known), which decide
// whether a block keeps its roots for the next ones. spacing 0: no
// progression (every deep prime is near).
struct DeepPlan {
  uint64_t spacing = 0;
  uint32_t slots = 1;
  uint64_t ahead = FarBlock::kNoEnd;
  // Whether sieves of the two plans may share a block: `ahead` differs from start to start.
  bool same_blocks(const DeepPlan& o) const { return spacing == o.spacing && slots == o.slots; }
};

// Which candidates a sieve keeps besides those the sieve primes leave.
enum class Keep : uint8_t {
  kAll = 0,
  k23Mod24 = 1,      // p ≡ 23 (mod 24): 2 generates the subgroup of order q (dhparam)
  kSshGenerator = 2  // p ≢ 119 (mod 120): ssh-keygen's rule gives 2 (p ≡ 11 mod 24) or 5 (p mod 10 = 3, 7)
};

struct SieveStats {
  uint64_t sieved = 0;  // candidates looked at
  uint64_t tested = 0;  // candidates that survived the sieve and got a Fermat test
};

class SafePrimeSieve {
 public:
  // start ≡ 11 (mod 12); sieve primes r < sieve_limit are used, and the caller
  // keeps sieve_limit below q's smallest possible value so no r equals q or p.
  // keep strikes one class of candidates too (Keep).
  SafePrimeSieve(const u64* start, int limbs, uint64_t sieve_limit, int rounds, Keep keep = Keep::kAll,
                 DeepPlan plan = {});
  // The same, deriving the deep roots from `previous` (consumed: its roots
  // move here, the rest is freed) when it has the same limb count, deep limit
  // and keep, holds its deep roots, and its start is 12·δ below this
  // one with 0 < δ < kMaxShift; otherwise they are computed from scratch. Which j a
  // search finds, and what it tests, is the same either way.
  // With a plan, the far primes' windows come from previous's block when
  // this start is one of its slots, else from a block starting here (its
  // roots shifted from previous's block when this start lies above it).
  SafePrimeSieve(const u64* start, int limbs, uint64_t sieve_limit, int rounds, Keep keep, DeepPlan plan,
                 SafePrimeSieve&& previous);

  // True when the deep roots were derived from a previous sieve rather than computed.
  bool derived() const { return derived_; }

  // Lowest j in [j0, j1) whose p_j is a safe prime, or -1. When `stop` is
  // raised (another thread asks), the search gives up between two
  // tests and returns kStopped: a slice at 8192 bits holds seconds of tests,
  // and a stop must not wait for them.
  static constexpr int64_t kStopped = -2;

  // Candidates from start the deep tier covers: bits²/2, from 2^16 to 2^25.
  // src/prime/sieve.ts (deepWindow) is its twin.
  static uint64_t deep_window(int bits);
  int64_t search(uint64_t j0, uint64_t j1, SieveStats& stats, StopFlag stop = StopFlag());

  // Heap bytes this sieve holds until destruction (the dense tier's two
  // residue tables, 4 bytes per dense sieve prime each, and the deep tier's
  // window once the first search built it), so the binding can tell the JS engine
  // what a small wrapper object really costs. search() holds nothing else
  // beyond its call.
  size_t memory_bytes() const;

 private:
  // Survivors tested together at most: the vertical IFMA kernel's lane count.
  static constexpr int kTestBatch = kVerticalLanes;
  // p_j (want_p) or q_j = (p_j − 1)/2 into out (limbs_ + 1 words, zero-padded); its word count.
  int candidate(uint64_t j, bool want_p, u64* out) const;

  std::vector<u64> start_;
  int limbs_;
  int rounds_;
  size_t nprimes_;
  // j ≡ struck_residue_ (mod struck_period_) is struck (Keep); period 0 strikes none.
  uint32_t struck_period_ = 0;
  uint32_t struck_residue_ = 0;
  std::vector<uint32_t> t0_, t1_;  // r | p_j ⇔ j ≡ t0 (mod r); r | q_j ⇔ j ≡ t1 (mod r)
  // Deep tier: primes up to deep_limit_ (0: none), struck into deep_ (bit j for
  // j < deep_window_) by the first search that reaches the window.
  uint64_t deep_limit_;
  uint64_t deep_window_;
  std::vector<uint64_t> deep_;
  // t0 per deep prime below deep_limit_ (deep_sieve_primes order); empty until
  // the first strike computes them or a constructor derives them. Derived
  // ones are those of the start 12·pending_shift_ below until the first
  // strike shifts them.
  DeepArray deep_t0_;
  uint64_t pending_shift_ = 0;
  // Deep primes from near_limit_ up (the plan's spacing) are struck by far_'s
  // window of slot far_slot_ instead; without a plan near_limit_ is deep_limit_.
  DeepPlan plan_;
  uint64_t near_limit_ = 0;
  std::shared_ptr<FarBlock> far_;
  uint32_t far_slot_ = 0;
  Keep keep_;
  bool derived_ = false;
  // False (and deep_ left empty) when `stop` was raised part-way.
  bool strike_deep(StopFlag stop);
};

}  // namespace powprime::bignum
