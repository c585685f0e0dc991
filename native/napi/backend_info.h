// backendInfo(): which kernels this machine runs, and why the others not.
#pragma once

#include <napi.h>

namespace powprime::napi {

Napi::Value BackendInfo(const Napi::CallbackInfo& info);

}  // namespace powprime::napi
