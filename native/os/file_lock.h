// An exclusive lock held by an open file: the kernel drops it when the
// holder's process ends however it ends (kill -9 included), so no lock is
// ever "stale" and none has to be taken over. flock(2) on POSIX, LockFileEx
// on Windows. Knows nothing of JavaScript.
#pragma once

#include <cstdint>
#include <string>

namespace powprime::os {

struct LockOpen {
  // The handle to give lock_close (>= 0), or -1.
  int64_t handle = -1;
  // True when another open file (any process, this one included) holds the lock.
  bool held = false;
  // The OS error (errno, or GetLastError on Windows) when the file could not
  // be opened or locked for another reason; 0 otherwise.
  int error = 0;
  // The failing call ("open", "flock", …) when error != 0.
  const char* syscall = "";
};

// Opens (creating it, mode 0644) `path` and takes an exclusive lock without
// waiting. On success a non-empty `note` replaces the file's contents (who holds it, for
// a person reading the file or an error message; the lock itself is the
// open file, not the text).
LockOpen lock_open(const std::string& path, const std::string& note);

// Removes the file (when `remove_path` is non-empty; POSIX only) while the
// lock is still held, then closes the handle, which drops the lock. Returns
// false when the handle was not open.
bool lock_close(int64_t handle, const std::string& remove_path);

// The POSIX name of LockOpen::error ("ENOENT", "EACCES", …), as Node's
// errors carry it, so callers branch on one set of codes on every platform.
const char* error_code(int error);

}  // namespace powprime::os
