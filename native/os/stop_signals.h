// The stop signals a scheduler or a terminal ends a command with (SIGINT,
// SIGTERM, SIGHUP, SIGQUIT), handled in C++ for a main thread busy in long
// synchronous work, where a JavaScript handler would run only once that work
// returns. The handlers are async-signal-safe and keep their state in process
// globals. POSIX only: on Windows each call does nothing and says so. Knows
// nothing of JavaScript.
#pragma once

namespace powprime::os {

// From now on each stop signal ends the process at once, from the signal
// handler, with the CLI's one line ("powprime: interrupted (SIGTERM)") on
// stderr and exit code 128 + the signal. For commands with nothing to tidy.
// False where signals are not POSIX (Windows).
bool exit_on_stop_signals();

// Until release_stop_signals(), stop signals are only noted (held_stop_signal()
// says which came), for a synchronous wait that polls for them. Holding twice
// is holding once. False where signals are not POSIX (Windows).
bool hold_stop_signals();

// The name ("SIGINT", …) of the stop signal noted since hold_stop_signals(), or nullptr.
const char* held_stop_signal();

// Puts back the handlers hold_stop_signals() replaced and returns the name of
// the signal noted meanwhile, or nullptr (none, or not holding). That signal
// is not delivered again: the caller acts on it.
const char* release_stop_signals();

}  // namespace powprime::os
