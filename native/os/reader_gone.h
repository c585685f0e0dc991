// Whether the reader of a pipe or socket this process writes to has gone
// (`powprime moduli | head -1`): a write would fail with EPIPE, but a command
// that writes a line every few minutes (a prime of 8192 bits) would only learn
// it then, and search on for nobody meanwhile. Knows nothing of JavaScript.
#pragma once

namespace powprime::os {

// True when `fd` is a pipe or Unix socket whose reading end is closed (poll()
// reports POLLERR or POLLHUP for writing); false for anything else (a terminal,
// a file, a pipe still read, a TCP socket, a bad fd) and on Windows.
bool reader_gone(int fd);

}  // namespace powprime::os
