// The only file that knows N-API: checks and converts arguments, then calls
// into kernels that know nothing of JavaScript. Every bad argument becomes a
// TypeError or RangeError naming it; nothing here may abort the process.
#include <napi.h>

#include <cstring>
#include <string>

#include "sha256/cpu_features.h"
#include "sha256/dispatch.h"
#include "sha256/pow_search.h"

namespace {

using namespace powprime;

[[noreturn]] void type_error(Napi::Env env, const std::string& msg) {
  throw Napi::TypeError::New(env, msg);
}
[[noreturn]] void range_error(Napi::Env env, const std::string& msg) {
  throw Napi::RangeError::New(env, msg);
}

uint32_t get_u32(const Napi::CallbackInfo& info, size_t i, const char* name, uint32_t lo, uint32_t hi) {
  if (!info[i].IsNumber()) type_error(info.Env(), std::string(name) + " must be a number");
  const double v = info[i].As<Napi::Number>().DoubleValue();
  if (!(v >= lo && v <= hi) || v != static_cast<double>(static_cast<uint64_t>(v)))
    range_error(info.Env(), std::string(name) + " must be an integer from " + std::to_string(lo) +
                                " to " + std::to_string(hi));
  return static_cast<uint32_t>(v);
}

uint64_t get_u64(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsBigInt()) type_error(info.Env(), std::string(name) + " must be a bigint");
  bool lossless = false;
  const uint64_t v = info[i].As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) range_error(info.Env(), std::string(name) + " must be a bigint from 0 to 2^64-1");
  return v;
}

const sha256::Kernel& get_kernel(const Napi::CallbackInfo& info, size_t i, const sha256::Kernel& dflt) {
  if (info.Length() <= i || info[i].IsUndefined()) return dflt;
  if (!info[i].IsString()) type_error(info.Env(), "kernel must be a string");
  const std::string id = info[i].As<Napi::String>().Utf8Value();
  const sha256::Kernel* k = sha256::kernel_by_name(id);
  if (!k) range_error(info.Env(), "kernel '" + id + "' is not usable on this machine");
  return *k;
}

Napi::Value BackendInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("sha256", sha256::best_kernel().name);
  out.Set("hasher", sha256::best_hasher().name);
  Napi::Array usable = Napi::Array::New(env);
  uint32_t n = 0;
  for (const sha256::Kernel* k : sha256::usable_kernels()) usable.Set(n++, k->id);
  out.Set("kernels", usable);
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
  out.Set("cpu", feats);
  return out;
}

// sha256(data: Uint8Array, kernel?: string): Uint8Array
Napi::Value Sha256(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    type_error(env, "data must be a Uint8Array");
  Napi::Uint8Array data = info[0].As<Napi::Uint8Array>();
  const sha256::Kernel& k = get_kernel(info, 1, sha256::best_hasher());
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
  if (job.digits_end % 4 != 0 && job.digits_end % 4 != 3)
    range_error(env, "digitsEnd must be 0 or 3 modulo 4");
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
  const sha256::Kernel& k = get_kernel(info, 7, sha256::best_kernel());
  const int64_t found = sha256::pow_search(k, job, k_start, k_end);
  if (found < 0) return env.Null();
  return Napi::BigInt::New(env, static_cast<uint64_t>(found));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("backendInfo", Napi::Function::New(env, BackendInfo));
  exports.Set("sha256", Napi::Function::New(env, Sha256));
  exports.Set("powSearch", Napi::Function::New(env, PowSearch));
  return exports;
}

}  // namespace

NODE_API_MODULE(powprime, Init)
