// Argument checks and conversions shared by every binding: each bad argument
// becomes a TypeError or RangeError naming it (thrown as a C++ exception that
// node-addon-api hands to JavaScript), so nothing here may abort the process.
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bignum/limbs.h"

namespace powprime::napi {

[[noreturn]] void type_error(Napi::Env env, const std::string& msg);
[[noreturn]] void range_error(Napi::Env env, const std::string& msg);

// Number.MAX_SAFE_INTEGER, 2^53 − 1: the largest bound a JS number still holds exactly.
constexpr double kMaxSafeInteger = 9007199254740991.0;

// Whether v is a whole JS number in [lo, hi] (0 ≤ lo, hi ≤ kMaxSafeInteger),
// stored in *out when it is; false for NaN and non-numbers. The one test
// behind every whole-number argument and field, each with its own message.
bool whole_in(const Napi::Value& v, double lo, double hi, uint64_t* out);

// A whole-number argument in [lo, hi], hi ≤ 2^53 (where a JS number is still exact).
uint64_t get_whole(const Napi::CallbackInfo& info, size_t i, const char* name, uint64_t lo, uint64_t hi);

uint32_t get_u32(const Napi::CallbackInfo& info, size_t i, const char* name, uint32_t lo, uint32_t hi);

// A bigint argument from 0 to 2^64 − 1.
uint64_t get_u64(const Napi::CallbackInfo& info, size_t i, const char* name);

// The kernel named by argument i (stored in id), or none (undefined): nullptr.
const std::string* get_kernel_id(const Napi::CallbackInfo& info, size_t i, std::string& id);

// The Miller–Rabin rounds of argument i, or -1 (undefined: the default for the size).
int get_rounds(const Napi::CallbackInfo& info, size_t i);

// A non-negative bigint as little-endian limbs (at least one), below 2^(64·(kMaxLimbs−1)).
std::vector<bignum::u64> big_from(Napi::Env env, Napi::Value v, const std::string& name);

// Argument i as big_from reads it (a missing argument is refused as not a bigint).
std::vector<bignum::u64> get_big(const Napi::CallbackInfo& info, size_t i, const char* name);

// An odd bigint of at least 3, as big_from reads it: what a Montgomery modulus must be.
std::vector<bignum::u64> odd_from(Napi::Env env, Napi::Value v, const std::string& name);

// Argument i as the odd modulus odd_from reads, named "modulus".
std::vector<bignum::u64> get_odd_modulus(const Napi::CallbackInfo& info, size_t i);

// The bigint of the n little-endian limbs at w (leading zero limbs dropped).
Napi::BigInt make_big(Napi::Env env, const bignum::u64* w, int n);

// A JS array of row(x) for each x of items (a container or a C array), in
// order: the one loop behind every list a binding returns.
template <typename Items, typename Row>
Napi::Array make_array(Napi::Env env, const Items& items, Row row) {
  Napi::Array a = Napi::Array::New(env);
  uint32_t i = 0;
  for (const auto& x : items) a.Set(i++, row(x));
  return a;
}

}  // namespace powprime::napi
