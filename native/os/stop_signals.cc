// The stop-signal handlers and their process-wide state (stop_signals.h);
// POSIX sigaction, nothing on Windows.
#include "os/stop_signals.h"

#ifndef _WIN32
#include <csignal>
#include <cstddef>
#include <iterator>

#include <unistd.h>
#endif

namespace powprime::os {

#ifdef _WIN32

bool exit_on_stop_signals() { return false; }
bool hold_stop_signals() { return false; }
const char* held_stop_signal() { return nullptr; }
const char* release_stop_signals() { return nullptr; }

#else

namespace {

// The signals a scheduler or a terminal stops a command with, all handled alike
// (SIGQUIT is Ctrl-\: a person quitting, not a request for a core dump here).
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// One of kStopSignals by name; async-signal-safe (a static string).
const char* stop_signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGQUIT";
}

// Whether stderr was a terminal when exit_on_stop_signals() ran: then the
// line first clears a progress line and shows the cursor again.
volatile sig_atomic_t g_stderr_tty = 0;

// Async-signal-safe: the line is assembled in a local buffer and written with write(2).
extern "C" void exit_handler(int sig) {
  const char* name = stop_signal_name(sig);
  char line[96];
  size_t n = 0;
  auto put = [&](const char* s) {
    while (*s && n < sizeof line) line[n++] = *s++;
  };
  if (g_stderr_tty) put("\r\x1b[2K\x1b[?25h");
  put("powprime: interrupted (");
  put(name);
  put(")\n");
  const ssize_t written = write(2, line, n);
  (void)written;
  _exit(128 + sig);
}

// The state of hold_stop_signals(): the signal noted (0: none), the handlers
// it replaced, and whether it is in force.
volatile sig_atomic_t g_held_signal = 0;
struct sigaction g_saved_actions[std::size(kStopSignals)];
bool g_holding = false;

extern "C" void note_handler(int sig) { g_held_signal = sig; }

const char* name_or_null(int sig) { return sig ? stop_signal_name(sig) : nullptr; }

}  // namespace

bool exit_on_stop_signals() {
  g_stderr_tty = isatty(2);
  struct sigaction sa = {};
  sa.sa_handler = exit_handler;
  sigemptyset(&sa.sa_mask);
  for (int sig : kStopSignals) sigaction(sig, &sa, nullptr);
  return true;
}

bool hold_stop_signals() {
  if (!g_holding) {
    g_held_signal = 0;
    struct sigaction sa = {};
    sa.sa_handler = note_handler;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < std::size(kStopSignals); i++) sigaction(kStopSignals[i], &sa, &g_saved_actions[i]);
    g_holding = true;
  }
  return true;
}

const char* held_stop_signal() { return name_or_null(g_held_signal); }

const char* release_stop_signals() {
  if (!g_holding) return nullptr;
  for (size_t i = 0; i < std::size(kStopSignals); i++) sigaction(kStopSignals[i], &g_saved_actions[i], nullptr);
  g_holding = false;
  const int sig = g_held_signal;
  g_held_signal = 0;
  return name_or_null(sig);
}

#endif

}  // namespace powprime::os
