// backendInfo(): the kernels the dispatchers admitted at load (SHA-256
// searchers and hashers, bignum kernels), the ones they refused with the
// reason, and the CPU features they were chosen by.
#include "napi/backend_info.h"

#include <cstdint>
#include <string>

#include "bignum/dispatch.h"
#include "cpu_features.h"
#include "napi/args.h"
#include "sha256/dispatch.h"

namespace powprime::napi {

Napi::Value BackendInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("sha256", sha256::best_searcher().name);
  out.Set("hasher", sha256::best_hasher().id);
  const auto id = [](const auto* k) { return k->id; };
  const auto as_is = [](const std::string& r) { return r; };
  out.Set("kernels", make_array(env, sha256::usable_searchers(), id));
  // Hashes per second each usable searcher reached in the timing at load, which ranked them.
  Napi::Object rates = Napi::Object::New(env);
  for (const sha256::PowGroupSearcher* k : sha256::usable_searchers()) rates.Set(k->id, sha256::searcher_rate(*k));
  out.Set("searcherRates", rates);
  out.Set("hashers", make_array(env, sha256::usable_hashers(), id));
  out.Set("refused", make_array(env, sha256::refused_kernels(), as_is));
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
  out.Set("bignumKernels", make_array(env, bignum::usable_kernels(), id));
  out.Set("bignumRefused", make_array(env, bignum::refused_kernels(), as_is));
  return out;
}

}  // namespace powprime::napi
