// The test-only bindings (introspect.h): each reads a table or a kernel's
// state as it is, or picks the bignum kernel, for a test to check.
#include "napi/introspect.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "bignum/dispatch.h"
#include "bignum/primality.h"
#include "bignum/prime_table.h"
#include "bignum/sieve_roots.h"
#include "bignum/sliding_window.h"
#include "bignum/small_primes.h"
#include "napi/args.h"
#include "napi/memory.h"
#include "sha256/pow_search.h"

namespace powprime::napi {

using bignum::u64;

Napi::Value Tables(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  auto pair = [&](int x, int y) {
    Napi::Array a = Napi::Array::New(env, 2);
    a.Set(0u, x);
    a.Set(1u, y);
    return a;
  };
  out.Set("bpswExactBits", bignum::kBpswExactBits);
  out.Set("defaultRounds", make_array(env, bignum::kDefaultRounds,
                                      [&](const bignum::RoundsRow& r) { return pair(r.min_bits, r.rounds); }));
  out.Set("windowBits",
          make_array(env, bignum::kWindowRows, [&](const bignum::WindowRow& r) { return pair(r.above, r.width); }));
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

Napi::Value SetBignumKernel(const Napi::CallbackInfo& info) {
  std::string id;
  if (!get_kernel_id(info, 0, id)) return Napi::String::New(info.Env(), bignum::use_best_kernel().name);
  const bignum::BignumKernel* k = bignum::use_kernel(id);
  if (!k) range_error(info.Env(), "kernel '" + id + "' is not a bignum kernel usable on this machine");
  return Napi::String::New(info.Env(), k->name);
}

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

Napi::Value NativeMemory(const Napi::CallbackInfo& info) {
  const LiveNative live = live_native();
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("objects", Napi::Number::New(info.Env(), double(live.objects)));
  out.Set("bytes", Napi::Number::New(info.Env(), double(live.bytes)));
  return out;
}

}  // namespace powprime::napi
