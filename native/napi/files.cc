// The file-lock bindings (files.h): checks paths and handles, and turns an OS
// failure into an Error shaped as Node's own (code, syscall, path).
#include "napi/files.h"

#include <cstdint>
#include <string>

#include "napi/args.h"
#include "os/file_lock.h"

namespace powprime::napi {

Napi::Value LockOpen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) type_error(env, "path must be a string");
  if (info.Length() < 2 || !info[1].IsString()) type_error(env, "note must be a string");
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  if (path.empty() || path.find('\0') != std::string::npos)
    type_error(env, "path must be a non-empty string without NUL");
  const os::LockOpen r = os::lock_open(path, info[1].As<Napi::String>().Utf8Value());
  if (r.held) return env.Null();
  if (r.error != 0) {
    const char* code = os::error_code(r.error);
    Napi::Error e = Napi::Error::New(env, std::string(code) + ": " + r.syscall + " failed on " + path);
    e.Set("code", Napi::String::New(env, code));
    e.Set("syscall", Napi::String::New(env, r.syscall));
    e.Set("path", Napi::String::New(env, path));
    throw e;
  }
  return Napi::Number::New(env, static_cast<double>(r.handle));
}

Napi::Value LockClose(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) type_error(env, "handle must be a number");
  uint64_t h = 0;
  if (!whole_in(info[0], 0, 2147483647.0, &h)) range_error(env, "handle must be a lock handle");
  std::string remove;
  if (info.Length() >= 2 && !info[1].IsUndefined()) {
    if (!info[1].IsString()) type_error(env, "removePath must be a string");
    remove = info[1].As<Napi::String>().Utf8Value();
  }
  return Napi::Boolean::New(env, os::lock_close(static_cast<int64_t>(h), remove));
}

}  // namespace powprime::napi
