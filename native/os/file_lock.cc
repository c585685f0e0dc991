#include "os/file_lock.h"

#include <cerrno>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <mutex>
#include <vector>
#else
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace powprime::os {

#ifdef _WIN32

namespace {
// Windows handles are pointers; the caller gets a small index instead.
std::mutex table_mutex;
std::vector<HANDLE> table;

std::wstring widen(const std::string& utf8) {
  const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.c_str(), -1, nullptr, 0);
  std::wstring w(n > 0 ? n : 1, L'\0');
  if (n > 0) MultiByteToWideChar(CP_UTF8, 0, utf8.c_str(), -1, w.data(), n);
  return w;
}
}  // namespace

LockOpen lock_open(const std::string& path, const std::string& note) {
  LockOpen r;
  HANDLE h = CreateFileW(widen(path).c_str(), GENERIC_READ | GENERIC_WRITE,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_ALWAYS,
                         FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    r.error = static_cast<int>(GetLastError());
    r.syscall = "CreateFileW";
    return r;
  }
  OVERLAPPED ov = {};
  if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, MAXDWORD, MAXDWORD, &ov)) {
    const DWORD e = GetLastError();
    CloseHandle(h);
    if (e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING) {
      r.held = true;
    } else {
      r.error = static_cast<int>(e);
      r.syscall = "LockFileEx";
    }
    return r;
  }
  // The note is advisory: a failure to write it does not undo the lock.
  if (!note.empty()) {
    DWORD written = 0;
    SetFilePointer(h, 0, nullptr, FILE_BEGIN);
    SetEndOfFile(h);
    WriteFile(h, note.data(), static_cast<DWORD>(note.size()), &written, nullptr);
  }
  std::lock_guard<std::mutex> g(table_mutex);
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i] == nullptr) {
      table[i] = h;
      r.handle = static_cast<int64_t>(i);
      return r;
    }
  }
  table.push_back(h);
  r.handle = static_cast<int64_t>(table.size() - 1);
  return r;
}

bool lock_close(int64_t handle, const std::string& /*remove_path*/) {
  HANDLE h = nullptr;
  {
    std::lock_guard<std::mutex> g(table_mutex);
    if (handle < 0 || static_cast<size_t>(handle) >= table.size() || table[handle] == nullptr) return false;
    h = table[handle];
    table[handle] = nullptr;
  }
  // The file stays: deleting a file another process has open is not
  // atomic with its lock on Windows, and a leftover lock file holds nothing.
  CloseHandle(h);
  return true;
}

#else

namespace {
// Tries once; the caller retries when the file was replaced meanwhile.
enum class Step { locked, held, replaced, failed };

Step try_once(const std::string& path, int& fd, LockOpen& r) {
  fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    r.error = errno;
    r.syscall = "open";
    return Step::failed;
  }
  int rc;
  do rc = ::flock(fd, LOCK_EX | LOCK_NB);
  while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK) return Step::held;
    r.error = e;
    r.syscall = "flock";
    return Step::failed;
  }
  // A holder removes the file before it lets go (lock_close): a lock won on
  // a file no longer at `path` guards nothing, so look again.
  struct stat opened, named;
  if (::fstat(fd, &opened) != 0 || ::stat(path.c_str(), &named) != 0 || opened.st_dev != named.st_dev ||
      opened.st_ino != named.st_ino) {
    ::close(fd);
    return Step::replaced;
  }
  return Step::locked;
}
}  // namespace

LockOpen lock_open(const std::string& path, const std::string& note) {
  LockOpen r;
  // Each retry follows a holder that released between our open and our
  // flock; a handful of them in a row means the file keeps changing.
  for (int attempt = 0; attempt < 64; ++attempt) {
    int fd = -1;
    switch (try_once(path, fd, r)) {
      case Step::failed:
        return r;
      case Step::held:
        r.held = true;
        return r;
      case Step::replaced:
        continue;
      case Step::locked:
        // The note is advisory: a failure to write it does not undo the lock.
        if (!note.empty() && ::ftruncate(fd, 0) == 0) {
          size_t done = 0;
          while (done < note.size()) {
            const ssize_t n = ::pwrite(fd, note.data() + done, note.size() - done, static_cast<off_t>(done));
            if (n <= 0 && errno != EINTR) break;
            if (n > 0) done += static_cast<size_t>(n);
          }
        }
        r.handle = fd;
        return r;
    }
  }
  r.held = true;
  return r;
}

bool lock_close(int64_t handle, const std::string& remove_path) {
  if (handle < 0 || handle > INT32_MAX) return false;
  const int fd = static_cast<int>(handle);
  if (::fcntl(fd, F_GETFD) < 0) return false;
  // Removed while still locked, so whoever opens the name next gets a new
  // file (try_once checks that it is the one at the path).
  // Only our own file: one removed by hand and made again by another
  // process is that process's lock.
  struct stat opened, named;
  if (!remove_path.empty() && ::fstat(fd, &opened) == 0 && ::stat(remove_path.c_str(), &named) == 0 &&
      opened.st_dev == named.st_dev && opened.st_ino == named.st_ino)
    ::unlink(remove_path.c_str());
  ::close(fd);
  return true;
}

#endif

const char* error_code(int error) {
#ifdef _WIN32
  switch (error) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
      return "ENOENT";
    case ERROR_ACCESS_DENIED:
      return "EACCES";
    case ERROR_WRITE_PROTECT:
      return "EROFS";
    default:
      return "EIO";
  }
#else
  switch (error) {
    case ENOENT:
      return "ENOENT";
    case ENOTDIR:
      return "ENOTDIR";
    case EISDIR:
      return "EISDIR";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case EROFS:
      return "EROFS";
    case ENAMETOOLONG:
      return "ENAMETOOLONG";
    case ELOOP:
      return "ELOOP";
    case ENOSPC:
      return "ENOSPC";
    case EDQUOT:
      return "EDQUOT";
    case ENOLCK:
      return "ENOLCK";
    case EMFILE:
      return "EMFILE";
    case ENFILE:
      return "ENFILE";
    case EOPNOTSUPP:
      return "EOPNOTSUPP";
    default:
      return "EIO";
  }
#endif
}

}  // namespace powprime::os
