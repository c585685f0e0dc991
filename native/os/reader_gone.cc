// reader_gone.h: one poll() with no wait, asking only whether `fd` could be
// written. Linux reports POLLERR on a pipe with no reader left, macOS and the
// BSDs POLLHUP; a Unix socket whose peer closed reports POLLHUP. A TCP peer's
// close is not seen here (POLLHUP needs both directions shut), nor is a socket
// shut for reading alone by design: only a write would tell, as before.
#include "os/reader_gone.h"

#ifndef _WIN32
#include <poll.h>
#endif

namespace powprime::os {

bool reader_gone(int fd) {
#ifdef _WIN32
  (void)fd;
  return false;
#else
  struct pollfd p = {fd, POLLOUT, 0};
  if (poll(&p, 1, 0) != 1) return false;
  return (p.revents & (POLLERR | POLLHUP)) != 0;
#endif
}

}  // namespace powprime::os
