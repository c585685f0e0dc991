// The native memory of this addon's live objects (memory.h).
#include "napi/memory.h"

#include <atomic>

namespace powprime::napi {

namespace {

// Native bytes held by live objects of this addon, over every thread of the
// process: what nativeMemory() reports, so a test or a soak run can see that
// each object was freed when its work ended (a leak shows as a count that
// only grows), whichever JS engine owns it.
std::atomic<int64_t> live_objects{0};
std::atomic<int64_t> live_bytes{0};

}  // namespace

// The engine's figure is a hint: a failed adjustment is ignored, since this
// also runs in finalizers, which may neither throw nor abort.
void account(napi_env env, int64_t bytes, int objects) {
  int64_t engine_total = 0;
  napi_adjust_external_memory(env, bytes, &engine_total);
  live_bytes.fetch_add(bytes, std::memory_order_relaxed);
  live_objects.fetch_add(objects, std::memory_order_relaxed);
}

LiveNative live_native() {
  return {live_objects.load(std::memory_order_relaxed), live_bytes.load(std::memory_order_relaxed)};
}

}  // namespace powprime::napi
