// Argument checks and conversions shared by every binding (args.h): numbers,
// bigints and kernel ids, each refusal a TypeError or RangeError naming the
// argument.
#include "napi/args.h"

namespace powprime::napi {

using bignum::u64;

void type_error(Napi::Env env, const std::string& msg) { throw Napi::TypeError::New(env, msg); }
void range_error(Napi::Env env, const std::string& msg) { throw Napi::RangeError::New(env, msg); }

bool whole_in(const Napi::Value& v, double lo, double hi, uint64_t* out) {
  if (!v.IsNumber()) return false;
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= lo && d <= hi) || d != static_cast<double>(static_cast<uint64_t>(d))) return false;
  *out = static_cast<uint64_t>(d);
  return true;
}

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

const std::string* get_kernel_id(const Napi::CallbackInfo& info, size_t i, std::string& id) {
  if (info.Length() <= i || info[i].IsUndefined()) return nullptr;
  if (!info[i].IsString()) type_error(info.Env(), "kernel must be a string");
  id = info[i].As<Napi::String>().Utf8Value();
  return &id;
}

int get_rounds(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || info[i].IsUndefined()) return -1;
  return int(get_u32(info, i, "rounds", 0, 1000));
}

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

std::vector<u64> odd_from(Napi::Env env, Napi::Value v, const std::string& name) {
  std::vector<u64> m = big_from(env, v, name);
  if (!(m[0] & 1) || (m.size() == 1 && m[0] < 3)) range_error(env, name + " must be odd and at least 3");
  return m;
}

std::vector<u64> get_odd_modulus(const Napi::CallbackInfo& info, size_t i) {
  return odd_from(info.Env(), info.Length() > i ? info[i] : info.Env().Undefined(), "modulus");
}

Napi::BigInt make_big(Napi::Env env, const u64* w, int n) {
  return Napi::BigInt::New(env, 0, size_t(bignum::trimmed(w, n)), w);
}

}  // namespace powprime::napi
