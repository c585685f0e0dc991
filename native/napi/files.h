// The file-lock bindings: lockOpen() and lockClose() over the OS locks of
// os/file_lock.h, for src/fs/.
#pragma once

#include <napi.h>

namespace powprime::napi {

// lockOpen(path, note): the handle of an exclusive OS lock on the file at
// path (created if need be), or null when another open file holds it. Any
// other failure is thrown as an Error carrying the errno code, syscall and path.
Napi::Value LockOpen(const Napi::CallbackInfo& info);

// lockClose(handle, removePath): removes removePath if it is still the locked
// file, then drops the lock; false when the handle was not open.
Napi::Value LockClose(const Napi::CallbackInfo& info);

}  // namespace powprime::napi
