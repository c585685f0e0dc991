// The only file that knows N-API: checks and converts arguments, then calls
// into kernels that know nothing of JavaScript. Every bad argument becomes a
// TypeError or RangeError naming it; nothing here may abort the process.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#ifndef _WIN32
#include <unistd.h>
#endif
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "bignum/dispatch.h"
#include "bignum/montgomery.h"
#include "bignum/primality.h"
#include "bignum/prime_table.h"
#include "bignum/safe_prime_sieve.h"
#include "bignum/sieve_roots.h"
#include "bignum/sliding_window.h"
#include "bignum/small_primes.h"
#include "cpu_features.h"
#include "os/file_lock.h"
#include "sha256/dispatch.h"
#include "sha256/pow_search.h"

namespace {

using namespace powprime;

[[noreturn]] void type_error(Napi::Env env, const std::string& msg) { throw Napi::TypeError::New(env, msg); }
[[noreturn]] void range_error(Napi::Env env, const std::string& msg) { throw Napi::RangeError::New(env, msg); }

// Number.MAX_SAFE_INTEGER, 2^53 − 1: the largest bound a JS number still holds exactly.
constexpr double kMaxSafeInteger = 9007199254740991.0;

// Whether v is a whole JS number in [lo, hi] (0 ≤ lo, hi ≤ kMaxSafeInteger),
// stored in *out when it is; false for NaN and non-numbers. The one test
// behind every whole-number argument and field, each with its own message.
bool whole_in(const Napi::Value& v, double lo, double hi, uint64_t* out) {
  if (!v.IsNumber()) return false;
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= lo && d <= hi) || d != static_cast<double>(static_cast<uint64_t>(d))) return false;
  *out = static_cast<uint64_t>(d);
  return true;
}

// A whole-number argument in [lo, hi], hi ≤ 2^53 (where a JS number is still exact).
uint64_t get_whole(const Napi::CallbackInfo& info, size_t i, const char* name, uint64_t lo, uint64_t hi) {
  if (!info[i].IsNumber()) type_error(info.Env(), std::string(name) + " must be a number");
  uint64_t v = 0;
  if (!whole_in(info[i], double(lo), double(hi), &v))
    range_error(info.Env(),
                std::string(name) + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

uint32_t get_u32(const Napi::CallbackInfo& info, size_t i, const char* name, uint32_t lo, uint32_t hi) {
  return static_cast<uint32_t>(get_whole(info, i, name, lo, hi));
}

uint64_t get_u64(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsBigInt()) type_error(info.Env(), std::string(name) + " must be a bigint");
  bool lossless = false;
  const uint64_t v = info[i].As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) range_error(info.Env(), std::string(name) + " must be a bigint from 0 to 2^64-1");
  return v;
}

// The kernel named by argument i, or none (undefined).
const std::string* get_kernel_id(const Napi::CallbackInfo& info, size_t i, std::string& id) {
  if (info.Length() <= i || info[i].IsUndefined()) return nullptr;
  if (!info[i].IsString()) type_error(info.Env(), "kernel must be a string");
  id = info[i].As<Napi::String>().Utf8Value();
  return &id;
}

const sha256::BlockHasher& get_hasher(const Napi::CallbackInfo& info, size_t i) {
  std::string id;
  if (!get_kernel_id(info, i, id)) return sha256::best_hasher();
  if (const sha256::BlockHasher* k = sha256::hasher_by_name(id)) return *k;
  if (sha256::searcher_by_name(id))
    range_error(info.Env(), "kernel '" + id + "' only searches proof-of-work groups and cannot hash a message");
  range_error(info.Env(), "kernel '" + id + "' is not usable on this machine");
}

const sha256::PowGroupSearcher& get_searcher(const Napi::CallbackInfo& info, size_t i) {
  std::string id;
  if (!get_kernel_id(info, i, id)) return sha256::best_searcher();
  const sha256::PowGroupSearcher* k = sha256::searcher_by_name(id);
  if (!k) range_error(info.Env(), "kernel '" + id + "' is not usable on this machine");
  return *k;
}

Napi::Value BackendInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("sha256", sha256::best_searcher().name);
  out.Set("hasher", sha256::best_hasher().id);
  Napi::Array usable = Napi::Array::New(env);
  uint32_t n = 0;
  // Hashes per second each usable searcher reached in the timing at load, which ranked them.
  Napi::Object rates = Napi::Object::New(env);
  for (const sha256::PowGroupSearcher* k : sha256::usable_searchers()) {
    usable.Set(n++, k->id);
    rates.Set(k->id, sha256::searcher_rate(*k));
  }
  out.Set("kernels", usable);
  out.Set("searcherRates", rates);
  Napi::Array hashers = Napi::Array::New(env);
  n = 0;
  for (const sha256::BlockHasher* k : sha256::usable_hashers()) hashers.Set(n++, k->id);
  out.Set("hashers", hashers);
  Napi::Array refused = Napi::Array::New(env);
  n = 0;
  for (const std::string& r : sha256::refused_kernels()) refused.Set(n++, r);
  out.Set("refused", refused);
  const CpuFeatures& cpu = cpu_features();
  Napi::Object feats = Napi::Object::New(env);
  feats.Set("shaNi", cpu.sha_ni);
  feats.Set("avx2", cpu.avx2);
  feats.Set("bmi2", cpu.bmi2);
  feats.Set("adx", cpu.adx);
  feats.Set("avx512f", cpu.avx512f);
  feats.Set("avx512ifma", cpu.avx512ifma);
  feats.Set("armSha2", cpu.arm_sha2);
  out.Set("cpu", feats);
  out.Set("bignum", bignum::kernel_in_force().name);
  Napi::Array bignum_usable = Napi::Array::New(env);
  n = 0;
  for (const bignum::BignumKernel* k : bignum::usable_kernels()) bignum_usable.Set(n++, k->id);
  out.Set("bignumKernels", bignum_usable);
  Napi::Array bignum_refused = Napi::Array::New(env);
  n = 0;
  for (const std::string& r : bignum::refused_kernels()) bignum_refused.Set(n++, r);
  out.Set("bignumRefused", bignum_refused);
  return out;
}

// sha256(data: Uint8Array, kernel?: string): Uint8Array
Napi::Value Sha256(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    type_error(env, "data must be a Uint8Array");
  Napi::Uint8Array data = info[0].As<Napi::Uint8Array>();
  const sha256::BlockHasher& k = get_hasher(info, 1);
  Napi::Uint8Array out = Napi::Uint8Array::New(env, 32);
  sha256::hash(k, data.Data(), data.ByteLength(), out.Data());
  return out;
}

// powSearch(mid: Uint32Array(8), block: Uint8Array(64), digitsEnd, digitsCount,
//           difficulty, kStart: bigint, kEnd: bigint, kernel?): bigint | null
Napi::Value PowSearch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 7) type_error(env, "powSearch takes 7 or 8 arguments");
  if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array ||
      info[0].As<Napi::Uint32Array>().ElementLength() != 8)
    type_error(env, "mid must be a Uint32Array of 8 words");
  if (!info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array ||
      info[1].As<Napi::Uint8Array>().ElementLength() != 64)
    type_error(env, "block must be a Uint8Array of 64 bytes");
  sha256::PowJob job{};
  std::memcpy(job.mid, info[0].As<Napi::Uint32Array>().Data(), sizeof job.mid);
  std::memcpy(job.block, info[1].As<Napi::Uint8Array>().Data(), sizeof job.block);
  job.digits_end = get_u32(info, 2, "digitsEnd", 4, 55);
  if (job.digits_end % 4 != 0 && job.digits_end % 4 != 3) range_error(env, "digitsEnd must be 0 or 3 modulo 4");
  job.digits_count = get_u32(info, 3, "digitsCount", 4, job.digits_end);
  job.difficulty = get_u32(info, 4, "difficulty", 0, 64);
  const uint64_t k_start = get_u64(info, 5, "kStart");
  const uint64_t k_end = get_u64(info, 6, "kEnd");
  if (k_end < k_start) range_error(env, "kEnd must not be below kStart");
  if (job.digits_count < 20 && k_end > k_start) {
    uint64_t window = 1;
    for (uint32_t i = 0; i < job.digits_count; i++) window *= 10;
    if (k_start / window != (k_end - 1) / window)
      range_error(env, "kStart..kEnd must stay inside one window of 10^digitsCount");
  }
  const sha256::PowGroupSearcher& k = get_searcher(info, 7);
  const uint64_t found = sha256::pow_search(k, job, k_start, k_end);
  if (found == sha256::kPowNotFound) return env.Null();
  return Napi::BigInt::New(env, found);
}

// ---- bignum ---------------------------------------------------------------

using bignum::u64;

// A non-negative bigint as little-endian limbs (at least one), below 2^(64·(kMaxLimbs−1)).
std::vector<u64> big_from(Napi::Env env, Napi::Value v, const std::string& name) {
  if (!v.IsBigInt()) type_error(env, name + " must be a bigint");
  Napi::BigInt b = v.As<Napi::BigInt>();
  size_t count = b.WordCount();
  std::vector<u64> w(count ? count : 1, 0);
  int sign = 0;
  b.ToWords(&sign, &count, w.data());
  if (sign && !(count == 1 && w[0] == 0)) range_error(env, name + " must not be negative");
  w.resize(size_t(bignum::trimmed(w.data(), int(w.size()))));
  if (w.size() >= size_t(bignum::kMaxLimbs))
    range_error(env, name + " is too large for the native backend (at most " +
                         std::to_string(64 * (bignum::kMaxLimbs - 1)) + " bits)");
  return w;
}

std::vector<u64> get_big(const Napi::CallbackInfo& info, size_t i, const char* name) {
  return big_from(info.Env(), info.Length() > i ? info[i] : info.Env().Undefined(), name);
}

Napi::BigInt make_big(Napi::Env env, const u64* w, int n) {
  return Napi::BigInt::New(env, 0, size_t(bignum::trimmed(w, n)), w);
}

int get_rounds(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || info[i].IsUndefined()) return -1;
  return int(get_u32(info, i, "rounds", 0, 1000));
}

// isProbablePrime(n: bigint, rounds?: number, trial = true): boolean — trial = false
// leaves the verdict to Baillie–PSW and the extra rounds alone (for tests).
Napi::Value IsProbablePrime(const Napi::CallbackInfo& info) {
  const std::vector<u64> n = get_big(info, 0, "n");
  const int rounds = get_rounds(info, 1);
  const bool trial = info.Length() <= 2 || info[2].IsUndefined() || info[2].ToBoolean().Value();
  return Napi::Boolean::New(info.Env(), bignum::is_probable_prime(n.data(), int(n.size()), rounds, trial));
}

// isSafePrime(p: bigint, rounds?: number): boolean
Napi::Value IsSafePrime(const Napi::CallbackInfo& info) {
  const std::vector<u64> p = get_big(info, 0, "p");
  if (p.size() == 1 && p[0] < 5) range_error(info.Env(), "p must be at least 5");
  const int rounds = get_rounds(info, 1);
  return Napi::Boolean::New(info.Env(), bignum::is_safe_prime(p.data(), int(p.size()), rounds));
}

std::vector<u64> odd_from(Napi::Env env, Napi::Value v, const std::string& name) {
  std::vector<u64> m = big_from(env, v, name);
  if (!(m[0] & 1) || (m.size() == 1 && m[0] < 3)) range_error(env, name + " must be odd and at least 3");
  return m;
}

std::vector<u64> get_odd_modulus(const Napi::CallbackInfo& info, size_t i) {
  return odd_from(info.Env(), info.Length() > i ? info[i] : info.Env().Undefined(), "modulus");
}

// modPow(base: bigint, exponent: bigint, modulus: bigint): bigint — modulus odd, base < modulus.
Napi::Value ModPow(const Napi::CallbackInfo& info) {
  std::vector<u64> base = get_big(info, 0, "base");
  const std::vector<u64> e = get_big(info, 1, "exponent");
  const std::vector<u64> mod = get_odd_modulus(info, 2);
  if (base.size() > mod.size() ||
      (base.size() == mod.size() && bignum::cmp(base.data(), mod.data(), int(mod.size())) >= 0))
    range_error(info.Env(), "base must be below modulus");
  const bignum::Mont m(mod.data(), int(mod.size()));
  // The kernel may work at a wider (padded) width than the modulus's size.
  base.resize(size_t(m.width()), 0);
  std::vector<u64> out(static_cast<size_t>(m.width()));
  m.modexp(out.data(), base.data(), e.data(), int(e.size()));
  return make_big(info.Env(), out.data(), m.width());
}

// pow2Mod(exponent: bigint, modulus: bigint): bigint — 2^exponent mod an odd modulus.
Napi::Value Pow2Mod(const Napi::CallbackInfo& info) {
  const std::vector<u64> e = get_big(info, 0, "exponent");
  const std::vector<u64> mod = get_odd_modulus(info, 1);
  const bignum::Mont m(mod.data(), int(mod.size()));
  std::vector<u64> out(static_cast<size_t>(m.width()));
  m.pow2(out.data(), e.data(), int(e.size()));
  return make_big(info.Env(), out.data(), m.width());
}

// fermatBase2(n: bigint[]): boolean[] — 2^(n−1) ≡ 1 (mod n) for each odd
// n ≥ 3, at most 64 of them; the way the sieve tests its survivors (eight at a
// time in SIMD lanes on the IFMA kernel), exposed so tests can reach it.
Napi::Value FermatBase2(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) type_error(env, "n must be an array of bigints");
  Napi::Array arr = info[0].As<Napi::Array>();
  const uint32_t count = arr.Length();
  if (count < 1 || count > 64) range_error(env, "n must hold 1 to 64 numbers");
  std::vector<std::vector<u64>> ns;
  size_t width = 1;
  for (uint32_t k = 0; k < count; k++) {
    std::vector<u64> w = odd_from(env, arr.Get(k), "n[" + std::to_string(k) + "]");
    width = std::max(width, w.size());
    ns.push_back(std::move(w));
  }
  std::vector<const u64*> ptrs;
  for (std::vector<u64>& w : ns) {
    w.resize(width, 0);
    ptrs.push_back(w.data());
  }
  std::unique_ptr<bool[]> out(new bool[count]);
  bignum::fermat_base2_many(ptrs.data(), int(count), int(width), out.get());
  Napi::Array result = Napi::Array::New(env, count);
  for (uint32_t k = 0; k < count; k++) result.Set(k, Napi::Boolean::New(env, out[k]));
  return result;
}

// deepPrimes(limit: number, lo?: number, hi?: number): Uint32Array — the
// primes in [lo, hi) (default: all of them) of the deep sieve's prime table
// that a sieve to `limit` reads (every prime from kDenseSieveLimit below the
// table's own limit, the next of 2^22, 2^25, 2^28, 2^30, 2^31, 2^32 at or above
// `limit`), built on first use as a search would. For tests, which count
// them and hold them against an independent sieve; a range checks the
// table's counts and its reader's edges, which the sieves rely on.
Napi::Value DeepPrimes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint64_t limit = 0;
  if (!whole_in(info[0], 1, double(bignum::kSieveLimit), &limit))
    range_error(env, "limit must be an integer from 1 to 2^32");
  // A range past the limit's table (deep_table_limit) is cut to it, whichever table serves.
  const uint64_t lo =
      info.Length() > 1 && !info[1].IsUndefined() ? get_whole(info, 1, "lo", 0, bignum::kSieveLimit) : 0;
  const uint64_t hi = info.Length() > 2 && !info[2].IsUndefined() ? get_whole(info, 2, "hi", lo, bignum::kSieveLimit)
                                                                  : bignum::kSieveLimit;
  const bignum::PrimeTable* table = bignum::deep_sieve_primes(limit, bignum::StopFlag());
  const uint64_t to = std::min<uint64_t>(hi, bignum::deep_table_limit(limit));
  const uint64_t from = std::min<uint64_t>(lo, to);
  const size_t n = table->count_below(to) - table->count_below(from);
  Napi::Uint32Array out = Napi::Uint32Array::New(env, n);
  bignum::PrimeCursor primes(*table, from, to);
  std::vector<uint32_t> chunk(size_t(1) << 12);
  size_t at = 0;
  for (size_t m; (m = primes.next(chunk.data(), chunk.size())) > 0 && at + m <= n; at += m)
    std::copy(chunk.begin(), chunk.begin() + ptrdiff_t(m), out.Data() + at);
  if (at != n) range_error(env, "the table's count and its primes disagree");  // a defect, reported not crashed on
  return out;
}

// sieveRoots(start: bigint, primes: Uint32Array, delta?: number): {t0, t1} —
// the combined sieve's roots of start ≡ 11 (mod 12) for each prime (5 ≤ r <
// 2^32): r | start + 12·t0 and r | (start + 12·t1 − 1)/2. With delta, the
// roots of start − 12·delta shifted by delta (the derived path), which must
// come out the same. For tests, which hold both against BigInt residues.
Napi::Value SieveRoots(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<u64> start = get_big(info, 0, "start");
  if (bignum::mod_small(start.data(), int(start.size()), 12) != 11) range_error(env, "start must be 11 modulo 12");
  if (info.Length() < 2 || !info[1].IsTypedArray() ||
      info[1].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array)
    type_error(env, "primes must be a Uint32Array");
  const Napi::Uint32Array primes = info[1].As<Napi::Uint32Array>();
  const size_t n = primes.ElementLength();
  for (size_t k = 0; k < n; k++)
    if (primes[k] < 5 || primes[k] % 2 == 0 || primes[k] % 3 == 0)
      range_error(env, "primes must be odd, at least 5 and not multiples of 3");
  uint64_t delta = 0;
  if (!info[2].IsUndefined() && !whole_in(info[2], 1, double(bignum::kMaxShift - 1), &delta))
    range_error(env, "delta must be an integer from 1 below 2^52");
  Napi::Uint32Array t0 = Napi::Uint32Array::New(env, n), t1 = Napi::Uint32Array::New(env, n);
  std::vector<u64> from = start;
  if (delta) {
    // start − 12·delta (below 2^56, one word), which must stay positive.
    u64 borrow = 12 * delta;
    for (size_t i = 0; i < from.size() && borrow; i++) {
      const u64 a = from[i];
      from[i] = a - borrow;
      borrow = a < borrow ? 1 : 0;
    }
    if (borrow || bignum::bit_length(from.data(), int(from.size())) == 0)
      range_error(env, "delta must leave start − 12·delta positive");
  }
  bignum::sieve_roots(from.data(), int(from.size()), primes.Data(), n, t0.Data(), t1.Data());
  if (delta) bignum::shift_roots(primes.Data(), n, delta, t0.Data(), t1.Data());
  Napi::Object out = Napi::Object::New(env);
  out.Set("t0", t0);
  out.Set("t1", t1);
  return out;
}

// Native bytes held by live objects of this addon, over every thread of the
// process: what nativeMemory() reports, so a test or a soak run can see that
// each object was freed when its work ended (a leak shows as a count that
// only grows), whichever JS engine owns it.
std::atomic<int64_t> live_objects{0};
std::atomic<int64_t> live_bytes{0};

// Counts `bytes` (negative: released) for nativeMemory() and tells the JS
// engine of `env`, whose collector otherwise sees only a small wrapper and
// would leave megabytes of unreachable objects uncollected. The engine's
// figure is a hint: a failed adjustment is ignored, since this also runs in
// finalizers, which may neither throw nor abort.
void account(napi_env env, int64_t bytes, int objects) {
  int64_t engine_total = 0;
  napi_adjust_external_memory(env, bytes, &engine_total);
  live_bytes.fetch_add(bytes, std::memory_order_relaxed);
  live_objects.fetch_add(objects, std::memory_order_relaxed);
}

// nativeMemory(): {objects: number, bytes: number} — live native objects and the bytes they hold, process-wide.
Napi::Value NativeMemory(const Napi::CallbackInfo& info) {
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("objects", Napi::Number::New(info.Env(), double(live_objects.load(std::memory_order_relaxed))));
  out.Set("bytes", Napi::Number::New(info.Env(), double(live_bytes.load(std::memory_order_relaxed))));
  return out;
}

// new SafePrimeSieve(start: bigint, sieveLimit: number, rounds?: number, keep?: 0 | 1 | 2, previous?: SafePrimeSieve)
// keep: which class is kept besides the sieve's survivors (bignum::Keep: all, p ≡ 23 mod 24, an ssh-keygen generator).
// previous: a sieve this one consumes (closes), deriving its deep roots from it when they fit (safe_prime_sieve.h).
// .derived: whether they did.
// .search(j0: number, j1: number, stop?: BigUint64Array): {found: number | null, sieved: number, tested: number, stopped?: true}
// .close(): frees the sieve's tables now (idempotent); a later search throws.
// The tables are megabytes (8 bytes per sieve prime), so the owner closes a
// sieve when its work ends; collection of an unclosed one is only a safety net.
// The optional deep plan argument {spacing, slots, ahead?} (safe_prime_sieve.h):
// spacing an integer below 2^52 (0: none), slots from 1 to 256 (a block holds
// slots deep windows, up to 4 MB each), ahead the run's index positions from
// this one on, this one included: an integer from 1 below 2^53, or absent
// when the run has no known end.
bignum::DeepPlan get_plan(const Napi::CallbackInfo& info, size_t i) {
  bignum::DeepPlan plan;
  if (info.Length() <= i || info[i].IsUndefined()) return plan;
  if (!info[i].IsObject()) type_error(info.Env(), "plan must be an object {spacing, slots, ahead?}");
  const Napi::Object o = info[i].As<Napi::Object>();
  const Napi::Value sp = o.Get("spacing"), sl = o.Get("slots"), ah = o.Get("ahead");
  uint64_t slots = 0;
  if (!whole_in(sp, 0, double(bignum::kMaxShift - 1), &plan.spacing))
    range_error(info.Env(), "plan.spacing must be an integer from 0 below 2^52");
  if (!whole_in(sl, 1, 256, &slots)) range_error(info.Env(), "plan.slots must be an integer from 1 to 256");
  plan.slots = uint32_t(slots);
  if (!ah.IsUndefined() && !whole_in(ah, 1, kMaxSafeInteger, &plan.ahead))
    range_error(info.Env(), "plan.ahead must be an integer from 1 below 2^53");
  return plan;
}

class SieveWrap : public Napi::ObjectWrap<SieveWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    Napi::Function f =
        DefineClass(env, "SafePrimeSieve",
                    {InstanceMethod("search", &SieveWrap::Search), InstanceMethod("close", &SieveWrap::Close),
                     InstanceAccessor("derived", &SieveWrap::Derived, nullptr)});
    // Kept per environment (each worker thread has its own class) to tell a
    // `previous` sieve from any other object.
    env.SetInstanceData(new Napi::FunctionReference(Napi::Persistent(f)));
    return f;
  }

  explicit SieveWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SieveWrap>(info) {
    const std::vector<u64> start = get_big(info, 0, "start");
    if (bignum::mod_small(start.data(), int(start.size()), 12) != 11)
      range_error(info.Env(), "start must be 11 modulo 12");
    if (bignum::bit_length(start.data(), int(start.size())) < 16)
      range_error(info.Env(), "start must have at least 16 bits");
    const uint64_t limit = get_whole(info, 1, "sieveLimit", 5, bignum::kSieveLimit);
    uint64_t keep = 0;
    if (info.Length() > 3 && !info[3].IsUndefined() && !whole_in(info[3], 0, 2, &keep))
      range_error(info.Env(), "keep must be 0, 1 or 2");
    const int rounds = get_rounds(info, 2);
    const bignum::DeepPlan plan = get_plan(info, 5);
    if (info.Length() > 4 && !info[4].IsUndefined()) {
      Napi::FunctionReference* cls = info.Env().GetInstanceData<Napi::FunctionReference>();
      if (!info[4].IsObject() || !cls || !info[4].As<Napi::Object>().InstanceOf(cls->Value()))
        type_error(info.Env(), "previous must be a SafePrimeSieve");
      SieveWrap* prev = Napi::ObjectWrap<SieveWrap>::Unwrap(info[4].As<Napi::Object>());
      if (!prev->sieve_) type_error(info.Env(), "previous must be an open SafePrimeSieve");
      sieve_ = std::make_unique<bignum::SafePrimeSieve>(start.data(), int(start.size()), limit, rounds,
                                                        bignum::Keep(keep), plan, std::move(*prev->sieve_));
      prev->release(info.Env());
    } else {
      sieve_ = std::make_unique<bignum::SafePrimeSieve>(start.data(), int(start.size()), limit, rounds,
                                                        bignum::Keep(keep), plan);
    }
    held_ = int64_t(sieve_->memory_bytes());
    account(info.Env(), held_, 1);
  }

  // Runs when the wrapper is collected or its thread's environment ends.
  void Finalize(Napi::BasicEnv env) override { release(env); }

 private:
  void release(napi_env env) {
    if (!sieve_) return;
    sieve_.reset();
    account(env, -held_, -1);
    held_ = 0;
  }

  Napi::Value Derived(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), sieve_ && sieve_->derived());
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    release(info.Env());
    return info.Env().Undefined();
  }

  Napi::Value Search(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!sieve_)
      throw Napi::Error::New(env, "this SafePrimeSieve is closed: close() freed it, so it can no longer search");
    uint64_t j0 = 0, j1 = 0;
    if (!whole_in(info[0], 0, kMaxSafeInteger, &j0)) range_error(env, "j0 must be a safe integer >= 0");
    if (!whole_in(info[1], double(j0), kMaxSafeInteger, &j1)) range_error(env, "j1 must be a safe integer >= j0");
    if (j1 - j0 > (uint64_t(1) << 24)) range_error(env, "j1 - j0 must be at most 2^24");
    // Optional stop flag: a one-element BigUint64Array over shared memory that
    // another thread sets non-zero; read atomically between tests (stop_flag.h).
    bignum::StopFlag stop;
    if (info.Length() > 2 && !info[2].IsUndefined()) {
      if (!info[2].IsTypedArray() || info[2].As<Napi::TypedArray>().TypedArrayType() != napi_biguint64_array ||
          info[2].As<Napi::TypedArray>().ElementLength() < 1)
        type_error(env, "stop must be a BigUint64Array of at least one element");
      stop = bignum::StopFlag(info[2].As<Napi::BigUint64Array>().Data());
    }
    bignum::SieveStats stats;
    const int64_t found = sieve_->search(j0, j1, stats, stop);
    // The first search may build the deep tier's window (up to 4 MB): tell the engine.
    const int64_t now = int64_t(sieve_->memory_bytes());
    if (now != held_) {
      account(env, now - held_, 0);
      held_ = now;
    }
    Napi::Object out = Napi::Object::New(env);
    if (found == bignum::SafePrimeSieve::kStopped) out.Set("stopped", Napi::Boolean::New(env, true));
    out.Set("found", found < 0 ? env.Null() : Napi::Number::New(env, double(found)));
    out.Set("sieved", Napi::Number::New(env, double(stats.sieved)));
    out.Set("tested", Napi::Number::New(env, double(stats.tested)));
    return out;
  }

  std::unique_ptr<bignum::SafePrimeSieve> sieve_;  // null once closed
  int64_t held_ = 0;                               // bytes accounted for sieve_
};

// setBignumKernel(id?: string): puts the usable bignum kernel with this id
// (one of backendInfo().bignumKernels) in force for this process, or the
// best one when id is undefined; tests and benchmarks use it to cover every
// kernel. Returns the name of the kernel now in force.
Napi::Value SetBignumKernel(const Napi::CallbackInfo& info) {
  std::string id;
  if (!get_kernel_id(info, 0, id)) return Napi::String::New(info.Env(), bignum::use_best_kernel().name);
  const bignum::BignumKernel* k = bignum::use_kernel(id);
  if (!k) range_error(info.Env(), "kernel '" + id + "' is not a bignum kernel usable on this machine");
  return Napi::String::New(info.Env(), k->name);
}

// tables(): the tables the TS backend mirrors, as plain arrays and numbers,
// so a test can hold each twin equal to its native original.
Napi::Value Tables(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  auto rows = [&](auto begin, auto end, auto row) {
    Napi::Array a = Napi::Array::New(env);
    uint32_t i = 0;
    for (auto it = begin; it != end; ++it) a.Set(i++, row(*it));
    return a;
  };
  auto pair = [&](int x, int y) {
    Napi::Array a = Napi::Array::New(env, 2);
    a.Set(0u, x);
    a.Set(1u, y);
    return a;
  };
  out.Set("bpswExactBits", bignum::kBpswExactBits);
  out.Set("defaultRounds", rows(std::begin(bignum::kDefaultRounds), std::end(bignum::kDefaultRounds),
                                [&](const bignum::RoundsRow& r) { return pair(r.min_bits, r.rounds); }));
  out.Set("windowBits", rows(std::begin(bignum::kWindowRows), std::end(bignum::kWindowRows),
                             [&](const bignum::WindowRow& r) { return pair(r.above, r.width); }));
  const std::vector<uint32_t>& trial = bignum::trial_primes();
  Napi::Uint32Array trial_out = Napi::Uint32Array::New(env, trial.size());
  std::memcpy(trial_out.Data(), trial.data(), trial.size() * sizeof(uint32_t));
  out.Set("trialPrimes", trial_out);
  out.Set("trialPrimesBelow", bignum::kTrialPrimesBelow);
  out.Set("sieveLimit", double(bignum::kSieveLimit));
  const sha256::PowFastWords& fast = sha256::pow_fast_words();
  Napi::Uint32Array four = Napi::Uint32Array::New(env, std::size(fast.four));
  std::memcpy(four.Data(), fast.four, sizeof fast.four);
  Napi::Uint32Array three = Napi::Uint32Array::New(env, std::size(fast.three));
  std::memcpy(three.Data(), fast.three, sizeof fast.three);
  out.Set("powFastWordsFour", four);
  out.Set("powFastWordsThree", three);
  return out;
}

// lockOpen(path, note): the handle of an exclusive OS lock on the file at
// path (created if need be), or null when another open file holds it. Any
// other failure is thrown as an Error carrying the errno code, syscall and path.
Napi::Value LockOpen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) type_error(env, "path must be a string");
  if (info.Length() < 2 || !info[1].IsString()) type_error(env, "note must be a string");
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  if (path.empty() || path.find('\0') != std::string::npos)
    type_error(env, "path must be a non-empty string without NUL");
  const os::LockOpen r = os::lock_open(path, info[1].As<Napi::String>().Utf8Value());
  if (r.held) return env.Null();
  if (r.error != 0) {
    const char* code = os::error_code(r.error);
    Napi::Error e = Napi::Error::New(env, std::string(code) + ": " + r.syscall + " failed on " + path);
    e.Set("code", Napi::String::New(env, code));
    e.Set("syscall", Napi::String::New(env, r.syscall));
    e.Set("path", Napi::String::New(env, path));
    throw e;
  }
  return Napi::Number::New(env, static_cast<double>(r.handle));
}

// lockClose(handle, removePath): removes removePath if it is still the locked
// file, then drops the lock; false when the handle was not open.
Napi::Value LockClose(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) type_error(env, "handle must be a number");
  uint64_t h = 0;
  if (!whole_in(info[0], 0, 2147483647.0, &h)) range_error(env, "handle must be a lock handle");
  std::string remove;
  if (info.Length() >= 2 && !info[1].IsUndefined()) {
    if (!info[1].IsString()) type_error(env, "removePath must be a string");
    remove = info[1].As<Napi::String>().Utf8Value();
  }
  return Napi::Boolean::New(env, os::lock_close(static_cast<int64_t>(h), remove));
}

// exitNow(code: number): never — ends the process at once with `code`. The CLI's
// last step after a stop signal: process.exit() waits for every pool thread, and
// one inside a computation that cannot be cut short (a primality test of a number
// of tens of thousands of bits) would hold the exit for minutes.
Napi::Value ExitNow(const Napi::CallbackInfo& info) { std::_Exit(int(get_u32(info, 0, "code", 0, 255))); }

#ifndef _WIN32
// The signals a scheduler or a terminal stops a command with, all handled alike
// (SIGQUIT is Ctrl-\: a person quitting, not a request for a core dump here).
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// One of kStopSignals by name; async-signal-safe (a static string).
const char* StopSignalName(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGQUIT";
}

volatile sig_atomic_t g_stderr_tty = 0;

// Async-signal-safe: the line is assembled in a local buffer and written with write(2).
extern "C" void ExitOnStopSignal(int sig) {
  const char* name = StopSignalName(sig);
  char line[96];
  size_t n = 0;
  auto put = [&](const char* s) {
    while (*s && n < sizeof line) line[n++] = *s++;
  };
  if (g_stderr_tty) put("\r\x1b[2K\x1b[?25h");
  put("powprime: interrupted (");
  put(name);
  put(")\n");
  const ssize_t written = write(2, line, n);
  (void)written;
  _exit(128 + sig);
}
#endif

// exitOnStopSignals(): boolean — from now on SIGINT, SIGTERM, SIGHUP and SIGQUIT end the
// process at once, from the signal handler, with the CLI's one line and exit
// code 128 + the signal. For commands with nothing to tidy whose main thread
// runs long synchronous work (a benchmark's sample, a big primality test), where
// a JavaScript handler would run only once that work returns. False where
// signals are not POSIX (Windows): the JavaScript handlers stay.
Napi::Value ExitOnStopSignals(const Napi::CallbackInfo& info) {
#ifdef _WIN32
  return Napi::Boolean::New(info.Env(), false);
#else
  g_stderr_tty = isatty(2);
  struct sigaction sa = {};
  sa.sa_handler = ExitOnStopSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : kStopSignals) sigaction(sig, &sa, nullptr);
  return Napi::Boolean::New(info.Env(), true);
#endif
}

#ifndef _WIN32
volatile sig_atomic_t g_held_signal = 0;
struct sigaction g_saved_actions[std::size(kStopSignals)];
bool g_holding = false;

extern "C" void NoteStopSignal(int sig) { g_held_signal = sig; }

Napi::Value SignalName(Napi::Env env, int sig) {
  if (!sig) return env.Null();
  return Napi::String::New(env, StopSignalName(sig));
}
#endif

// holdStopSignals(): boolean — until releaseStopSignals(), SIGINT, SIGTERM,
// SIGHUP and SIGQUIT are only noted (heldStopSignal() says which came), for a synchronous
// wait on the main thread that polls for them: the handlers in place (Node's,
// or exitOnStopSignals') would otherwise run only once the wait returns. False
// where signals are not POSIX (Windows).
Napi::Value HoldStopSignals(const Napi::CallbackInfo& info) {
#ifdef _WIN32
  return Napi::Boolean::New(info.Env(), false);
#else
  if (!g_holding) {
    g_held_signal = 0;
    struct sigaction sa = {};
    sa.sa_handler = NoteStopSignal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < std::size(kStopSignals); i++) sigaction(kStopSignals[i], &sa, &g_saved_actions[i]);
    g_holding = true;
  }
  return Napi::Boolean::New(info.Env(), true);
#endif
}

// heldStopSignal(): string | null — the stop signal noted since holdStopSignals().
Napi::Value HeldStopSignal(const Napi::CallbackInfo& info) {
#ifdef _WIN32
  return info.Env().Null();
#else
  return SignalName(info.Env(), g_held_signal);
#endif
}

// releaseStopSignals(): string | null — puts back the handlers holdStopSignals()
// replaced and returns the signal noted meanwhile, which is not delivered
// again: the caller acts on it.
Napi::Value ReleaseStopSignals(const Napi::CallbackInfo& info) {
#ifdef _WIN32
  return info.Env().Null();
#else
  if (!g_holding) return info.Env().Null();
  for (size_t i = 0; i < std::size(kStopSignals); i++) sigaction(kStopSignals[i], &g_saved_actions[i], nullptr);
  g_holding = false;
  const int sig = g_held_signal;
  g_held_signal = 0;
  return SignalName(info.Env(), sig);
#endif
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("lockOpen", Napi::Function::New(env, LockOpen));
  exports.Set("lockClose", Napi::Function::New(env, LockClose));
  exports.Set("tables", Napi::Function::New(env, Tables));
  exports.Set("sieveRoots", Napi::Function::New(env, SieveRoots));
  exports.Set("deepPrimes", Napi::Function::New(env, DeepPrimes));
  exports.Set("setBignumKernel", Napi::Function::New(env, SetBignumKernel));
  exports.Set("isProbablePrime", Napi::Function::New(env, IsProbablePrime));
  exports.Set("isSafePrime", Napi::Function::New(env, IsSafePrime));
  exports.Set("modPow", Napi::Function::New(env, ModPow));
  exports.Set("pow2Mod", Napi::Function::New(env, Pow2Mod));
  exports.Set("fermatBase2", Napi::Function::New(env, FermatBase2));
  exports.Set("SafePrimeSieve", SieveWrap::Define(env));
  exports.Set("nativeMemory", Napi::Function::New(env, NativeMemory));
  exports.Set("backendInfo", Napi::Function::New(env, BackendInfo));
  exports.Set("sha256", Napi::Function::New(env, Sha256));
  exports.Set("powSearch", Napi::Function::New(env, PowSearch));
  exports.Set("exitNow", Napi::Function::New(env, ExitNow));
  exports.Set("exitOnStopSignals", Napi::Function::New(env, ExitOnStopSignals));
  exports.Set("holdStopSignals", Napi::Function::New(env, HoldStopSignals));
  exports.Set("heldStopSignal", Napi::Function::New(env, HeldStopSignal));
  exports.Set("releaseStopSignals", Napi::Function::New(env, ReleaseStopSignals));
  exports.Set("version", Napi::String::New(env, POWPRIME_VERSION));
  return exports;
}

}  // namespace

NODE_API_MODULE(powprime, Init)
