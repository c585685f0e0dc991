// The SHA-256 bindings (sha256.h): checks a message or a proof-of-work job,
// picks the kernel, and calls the dispatcher.
#include "napi/sha256.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "napi/args.h"
#include "sha256/dispatch.h"
#include "sha256/pow_search.h"

namespace powprime::napi {

namespace {

// The hasher named by argument i, or the best one; a searcher's id or an unusable one is refused.
const sha256::BlockHasher& get_hasher(const Napi::CallbackInfo& info, size_t i) {
  std::string id;
  if (!get_kernel_id(info, i, id)) return sha256::best_hasher();
  if (const sha256::BlockHasher* k = sha256::hasher_by_name(id)) return *k;
  if (sha256::searcher_by_name(id))
    range_error(info.Env(), "kernel '" + id + "' only searches proof-of-work groups and cannot hash a message");
  range_error(info.Env(), "kernel '" + id + "' is not usable on this machine");
}

// The proof-of-work searcher named by argument i, or the best one.
const sha256::PowGroupSearcher& get_searcher(const Napi::CallbackInfo& info, size_t i) {
  std::string id;
  if (!get_kernel_id(info, i, id)) return sha256::best_searcher();
  const sha256::PowGroupSearcher* k = sha256::searcher_by_name(id);
  if (!k) range_error(info.Env(), "kernel '" + id + "' is not usable on this machine");
  return *k;
}

}  // namespace

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

}  // namespace powprime::napi
