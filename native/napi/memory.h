// The native memory of this addon's live objects: told to the JS engine that
// owns each object, and counted process-wide for nativeMemory().
#pragma once

#include <napi.h>

#include <cstdint>

namespace powprime::napi {

// Counts `bytes` (negative: released) and `objects` (+1 made, −1 freed, 0 a
// change of size) for nativeMemory() and tells the JS engine of `env`, whose
// collector otherwise sees only a small wrapper and would leave megabytes of
// unreachable objects uncollected. Never throws: it also runs in finalizers.
void account(napi_env env, int64_t bytes, int objects);

// Live native objects and the bytes they hold, over every thread of the process.
struct LiveNative {
  int64_t objects;
  int64_t bytes;
};
LiveNative live_native();

}  // namespace powprime::napi
