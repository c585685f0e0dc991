// backendInfo(): the kernels the dispatchers admitted at load (SHA-256
// searchers and hashers, bignum kernels), the ones they refused with the
// reason, and the CPU features they were chosen by.
#include "napi/backend_info.h"

#include <cstdint>
#include <string>

#include "bignum/dispatch.h"
#include "cpu_features.h"
#include "sha256/dispatch.h"

namespace powprime::napi {

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

}  // namespace powprime::napi
