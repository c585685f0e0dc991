/** Long-running CLI processes in tests: watched while they run, killed with -9, and all stopped at the end. */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { CLI_ENTRY, type CliResult } from './cli.ts';

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<CliResult>;
  /** Resolves once `test` holds for the output so far (checked on every chunk of output). */
  waitFor: (test: (stdout: string, stderr: string) => boolean, what: string, timeoutMs?: number) => Promise<void>;
  kill9: () => Promise<void>;
}

const started = new Set<ChildProcess>();

/** `stdoutTo`: a file stdout is written to, as a shell's `> file` (stdout() is then empty). */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}, stdoutTo?: string): Running {
  const fd = stdoutTo === undefined ? undefined : openSync(stdoutTo, 'w');
  const child = spawn(process.execPath, [...CLI_ENTRY, ...args], { stdio: ['pipe', fd ?? 'pipe', 'pipe'], env: { ...process.env, ...env } });
  // The child has its own copy of the descriptor.
  if (fd !== undefined) closeSync(fd);
  started.add(child);
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const poke = (): void => {
    for (const w of waiters) w();
  };
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    poke();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    poke();
  });
  const exited = new Promise<CliResult>((resolve) => {
    child.on('exit', (status) => {
      started.delete(child);
      resolve({ status, stdout: out, stderr: err });
      poke();
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (test, what, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const holds = (): boolean => {
          try {
            return test(out, err);
          } catch {
            return false;
          }
        };
        const check = (): void => {
          if (holds()) finish(null);
          else if (child.exitCode !== null || child.signalCode !== null) finish(new Error(`process ended before ${what}; stderr: ${err}`));
        };
        const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}; stderr: ${err}`)), timeoutMs);
        // Also looked at on a clock: the test may watch a file rather than the output.
        const tick = setInterval(check, 100);
        function finish(e: Error | null): void {
          clearTimeout(timer);
          clearInterval(tick);
          waiters.delete(check);
          if (e) reject(e);
          else resolve();
        }
        waiters.add(check);
        check();
      }),
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Kills every process a test started and has not seen end. */
export async function killAll(): Promise<void> {
  const all = [...started];
  for (const c of all) c.kill('SIGKILL');
  await Promise.all(all.map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)))));
}
