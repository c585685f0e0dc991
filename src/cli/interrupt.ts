/**
 * How every command stops: SIGINT (Ctrl-C), SIGTERM (systemd, Kubernetes,
 * docker, Slurm), SIGHUP (the terminal went away) and SIGQUIT (Ctrl-\, which
 * would otherwise kill at once and leave lock files behind) take one path.
 *
 * A command that owns something to tidy (a line being written, a lock, queue
 * chunks, a posted question whose id must be shown) runs inside
 * `stopsCleanly`: the first signal aborts `interruptSignal` with an
 * InterruptedError naming the signal, the work winds down by itself, and
 * main.ts prints the one line `powprime: interrupted (SIGTERM)` and exits
 * 128 + the signal's number. Outside such a scope there is nothing to tidy
 * (every write is synchronous, so none is half done when a handler runs):
 * the process leaves at once, with the same line and code. A second signal
 * while a command tidies up also leaves at once; the same signal again within
 * SAME_STOP_MS is the first one delivered twice, not a second stop.
 */
import { constants } from 'node:os';
import { InterruptedError } from '../errors.ts';
import { lockHolderText } from '../fs/lock-note.ts';
import { guardSyncWaits, type SyncWaitGuard } from '../fs/lock-wait.ts';
import { ignoreErrorEvents } from '../ignored-rejection.ts';
import { native, nativeIfLoaded } from '../native.ts';
import { stopWhenNpxGoes } from './npx-parent.ts';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

const controller = new AbortController();
/** Aborted, with an InterruptedError naming the signal, at the first stop signal. */
export const interruptSignal: AbortSignal = controller.signal;

let received: StopSignal | null = null;
let receivedAt = 0;
/** coreutils `timeout` signals the process, then its process group: one stop, two deliveries a moment apart. */
const SAME_STOP_MS = 100;
let scopes = 0;
let reported = false;
let settled = false;

/** 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP, 131 for SIGQUIT. */
export function exitCodeForSignal(signal: string): number {
  const n = (constants.signals as Record<string, number | undefined>)[signal];
  return 128 + (n ?? constants.signals.SIGINT);
}

/** The signal that stopped this process, if one did. */
export function interruptedBy(): StopSignal | null {
  return received;
}

/** Installed once by main.ts, before any command runs. */
export function installInterruptHandlers(): void {
  // Windows has no SIGQUIT (Node refuses a listener for it there).
  for (const name of STOP_SIGNALS) if (name !== 'SIGQUIT' || process.platform !== 'win32') process.on(name, () => onSignal(name));
  guardSyncWaits(lockWaitGuard);
  stopWhenNpxGoes(() => onSignal('SIGTERM'));
}

/**
 * The library waits for a state file's lock (the keystore, the rate-limit
 * record, the cookie jar) synchronously, up to a minute when its holder is
 * stuck, and Node runs the handlers above only after such a wait. For its
 * length the addon notes a stop signal instead, the wait ends at it, and the
 * signal then takes the usual path: the process leaves at once, or a command
 * that tidies up gets an InterruptedError out of the state-file operation.
 * Without the addon the wait runs out as before.
 */
let holding = false;
const lockWaitGuard: SyncWaitGuard = {
  enter() {
    holding = native()?.holdStopSignals?.() === true;
  },
  pending() {
    return holding && native()!.heldStopSignal() !== null;
  },
  notice(what, lockFile) {
    try {
      process.stderr.write(`powprime: waiting for ${what} (locked by ${lockHolderText(lockFile)})\n`);
    } catch {
      // stderr is gone (SIGHUP): the wait goes on without the line.
    }
  },
  leave() {
    if (!holding) return;
    holding = false;
    const held = native()!.releaseStopSignals();
    if (held === null) return;
    const name = STOP_SIGNALS.find((s) => s === held) ?? 'SIGINT';
    onSignal(name); // leaves the process unless a command is tidying up
    throw controller.signal.reason instanceof InterruptedError ? controller.signal.reason : new InterruptedError(name);
  },
};

/**
 * The command's outcome is decided and reported (its output or its error
 * line): a signal from now on, while the process winds down, ends it with
 * that outcome's code and no further line.
 */
export function markSettled(): void {
  settled = true;
}

function onSignal(name: StopSignal): void {
  if (settled && !received) {
    leaveProcess(typeof process.exitCode === 'number' ? process.exitCode : 0);
    return;
  }
  if (received) {
    // A second signal: no more waiting for the tidy-up.
    if (name !== received || performance.now() - receivedAt >= SAME_STOP_MS) exitNow();
    return;
  }
  received = name;
  ignoreErrorEvents(process.stderr, 'after SIGHUP the terminal may be gone: a failed write to it must not become a crash, and the exit code still tells');
  controller.abort(new InterruptedError(name));
  // Timed after the abort's own listeners ran: their time is not a gap between two deliveries.
  receivedAt = performance.now();
  if (scopes === 0) exitNow();
}

/**
 * Runs `fn` as work that stops by itself when `interruptSignal` aborts
 * (and then rejects with its reason, or returns): a signal does not end the
 * process while it runs.
 */
export async function stopsCleanly<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  scopes++;
  try {
    return await fn(controller.signal);
  } finally {
    scopes--;
  }
}

/**
 * The one line saying the process was interrupted (once per process), with
 * what the command adds (e.g. how to resume). A status line or progress bar
 * is wiped first and the cursor shown again.
 */
export function reportInterrupted(err: InterruptedError): void {
  if (reported) return;
  reported = true;
  try {
    process.stderr.write(`${process.stderr.isTTY ? '\r\x1b[2K\x1b[?25h' : ''}powprime: ${err.message}\n`);
  } catch {
    // stderr is gone (SIGHUP): the exit code still says it.
  }
}

function exitNow(): never {
  const signal = received ?? 'SIGINT';
  reportInterrupted(new InterruptedError(signal));
  leaveProcess(exitCodeForSignal(signal));
}

/**
 * For commands that hold nothing to tidy and run long synchronous work on
 * the main thread (a benchmark's sample, a primality test of a huge number
 * on the calling thread): a JavaScript handler would run only once that work
 * returns, so the addon's signal handler ends the process itself, with the
 * same line and exit code. Without the addon the JavaScript handlers stay.
 */
export function leaveAtSignal(): void {
  const n = native();
  if (typeof n?.exitOnStopSignals === 'function') n.exitOnStopSignals();
}

/**
 * Ends the process with `code` after its 'exit' handlers (which release lock
 * files). process.exit() would first wait for every pool thread, and a
 * native computation that cannot be cut short (a primality test of a number
 * of tens of thousands of bits) would hold it for minutes; the addon ends
 * the process at once instead. Only on Linux, where stdout and stderr are
 * synchronous for files, pipes and terminals alike, so every line is out
 * already; elsewhere process.exit() flushes them.
 */
export function leaveProcess(code: number): never {
  // Not loaded by now means no native work ran: the main thread resolves the
  // backend before any task reaches a pool thread, so no thread is stuck in
  // the addon, and loading it here would only delay the exit.
  const n = nativeIfLoaded();
  if (process.platform !== 'linux' || typeof n?.exitNow !== 'function') process.exit(code);
  process.exitCode = code;
  process.emit('exit', code);
  return n.exitNow(code);
}
