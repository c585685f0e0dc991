// The SafePrimeSieve class (sieve.h): checks a sieve's arguments, owns the
// native sieve, and reports the memory it holds as it grows and is freed.
#include "napi/sieve.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "bignum/safe_prime_sieve.h"
#include "bignum/sieve_roots.h"
#include "bignum/small_primes.h"
#include "napi/args.h"
#include "napi/memory.h"

namespace powprime::napi {

namespace {

using bignum::u64;

// The deep plan of argument i (sieve.h), or none.
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

}  // namespace

Napi::Function DefineSafePrimeSieve(Napi::Env env) { return SieveWrap::Define(env); }

}  // namespace powprime::napi
