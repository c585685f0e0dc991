// The process bindings (process.h): a checked exit code for exitNow(), the
// stop-signal calls of os/stop_signals.h with a signal's name as a string or
// null, and readerGone() with a checked file descriptor.
#include "napi/process.h"

#include <cstdint>
#include <cstdlib>

#include "napi/args.h"
#include "os/reader_gone.h"
#include "os/stop_signals.h"

namespace powprime::napi {

namespace {

Napi::Value name_or_null(Napi::Env env, const char* name) {
  if (!name) return env.Null();
  return Napi::String::New(env, name);
}

}  // namespace

Napi::Value ExitNow(const Napi::CallbackInfo& info) { std::_Exit(int(get_u32(info, 0, "code", 0, 255))); }

Napi::Value ExitOnStopSignals(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), os::exit_on_stop_signals());
}

Napi::Value HoldStopSignals(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), os::hold_stop_signals());
}

Napi::Value HeldStopSignal(const Napi::CallbackInfo& info) { return name_or_null(info.Env(), os::held_stop_signal()); }

Napi::Value ReleaseStopSignals(const Napi::CallbackInfo& info) {
  return name_or_null(info.Env(), os::release_stop_signals());
}

Napi::Value ReaderGone(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), os::reader_gone(int(get_u32(info, 0, "fd", 0, INT32_MAX))));
}

}  // namespace powprime::napi
