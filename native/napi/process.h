// The process bindings for the CLI's ways out (src/cli/interrupt.ts): exitNow(),
// the stop-signal handlers of os/stop_signals.h, and readerGone() (os/reader_gone.h).
#pragma once

#include <napi.h>

namespace powprime::napi {

// exitNow(code: number): never — ends the process at once with `code`. The CLI's
// last step after a stop signal: process.exit() waits for every pool thread, and
// one inside a computation that cannot be cut short (a primality test of a number
// of tens of thousands of bits) would hold the exit for minutes.
Napi::Value ExitNow(const Napi::CallbackInfo& info);

// exitOnStopSignals(): boolean — from now on SIGINT, SIGTERM, SIGHUP and SIGQUIT end the
// process at once, from the signal handler, with the CLI's one line and exit
// code 128 + the signal. For commands with nothing to tidy whose main thread
// runs long synchronous work (a benchmark's sample, a big primality test), where
// a JavaScript handler would run only once that work returns. False where
// signals are not POSIX (Windows): the JavaScript handlers stay.
Napi::Value ExitOnStopSignals(const Napi::CallbackInfo& info);

// holdStopSignals(): boolean — until releaseStopSignals(), SIGINT, SIGTERM,
// SIGHUP and SIGQUIT are only noted (heldStopSignal() says which came), for a synchronous
// wait on the main thread that polls for them: the handlers in place (Node's,
// or exitOnStopSignals') would otherwise run only once the wait returns. False
// where signals are not POSIX (Windows).
Napi::Value HoldStopSignals(const Napi::CallbackInfo& info);

// heldStopSignal(): string | null — the stop signal noted since holdStopSignals().
Napi::Value HeldStopSignal(const Napi::CallbackInfo& info);

// releaseStopSignals(): string | null — puts back the handlers holdStopSignals()
// replaced and returns the signal noted meanwhile, which is not delivered
// again: the caller acts on it.
Napi::Value ReleaseStopSignals(const Napi::CallbackInfo& info);

// readerGone(fd: number): boolean — whether fd is a pipe or socket whose reader
// has closed it (os/reader_gone.h), for a command that prints a result every
// few minutes to stop when no one reads them any more (src/cli/reader-gone.ts).
Napi::Value ReaderGone(const Napi::CallbackInfo& info);

}  // namespace powprime::napi
