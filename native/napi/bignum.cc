// The bignum bindings (bignum.h): reads bigints into limbs, checks what each
// operation needs of them, and calls the primality tests and Montgomery
// arithmetic.
#include "napi/bignum.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bignum/montgomery.h"
#include "bignum/primality.h"
#include "napi/args.h"

namespace powprime::napi {

using bignum::u64;

Napi::Value IsProbablePrime(const Napi::CallbackInfo& info) {
  const std::vector<u64> n = get_big(info, 0, "n");
  const int rounds = get_rounds(info, 1);
  const bool trial = info.Length() <= 2 || info[2].IsUndefined() || info[2].ToBoolean().Value();
  return Napi::Boolean::New(info.Env(), bignum::is_probable_prime(n.data(), int(n.size()), rounds, trial));
}

Napi::Value IsSafePrime(const Napi::CallbackInfo& info) {
  const std::vector<u64> p = get_big(info, 0, "p");
  if (p.size() == 1 && p[0] < 5) range_error(info.Env(), "p must be at least 5");
  const int rounds = get_rounds(info, 1);
  return Napi::Boolean::New(info.Env(), bignum::is_safe_prime(p.data(), int(p.size()), rounds));
}

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

Napi::Value Pow2Mod(const Napi::CallbackInfo& info) {
  const std::vector<u64> e = get_big(info, 0, "exponent");
  const std::vector<u64> mod = get_odd_modulus(info, 1);
  const bignum::Mont m(mod.data(), int(mod.size()));
  std::vector<u64> out(static_cast<size_t>(m.width()));
  m.pow2(out.data(), e.data(), int(e.size()));
  return make_big(info.Env(), out.data(), m.width());
}

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
  // Not std::vector<bool>, which packs bits and has no bool* to hand the kernel.
  const std::unique_ptr<bool[]> out = std::make_unique<bool[]>(count);
  bignum::fermat_base2_many(ptrs.data(), int(count), int(width), out.get());
  Napi::Array result = Napi::Array::New(env, count);
  for (uint32_t k = 0; k < count; k++) result.Set(k, Napi::Boolean::New(env, out[k]));
  return result;
}

}  // namespace powprime::napi
