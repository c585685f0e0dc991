// The SHA-256 bindings: sha256() of a message and powSearch() over a range of
// proof-of-work candidates, each on the best kernel or the one named.
#pragma once

#include <napi.h>

namespace powprime::napi {

// sha256(data: Uint8Array, kernel?: string): Uint8Array
Napi::Value Sha256(const Napi::CallbackInfo& info);

// powSearch(mid: Uint32Array(8), block: Uint8Array(64), digitsEnd, digitsCount,
//           difficulty, kStart: bigint, kEnd: bigint, kernel?): bigint | null
Napi::Value PowSearch(const Napi::CallbackInfo& info);

}  // namespace powprime::napi
