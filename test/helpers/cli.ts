/** Runs the CLI from source in a child process. */
import { spawn, spawnSync } from 'node:child_process';

/** The arguments that start the CLI from source. */
export const CLI_FROM_SOURCE = ['--import', 'tsx', 'src/cli/main.ts'];

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

function runWith(env: NodeJS.ProcessEnv, args: string[]): CliResult {
  const r = spawnSync(process.execPath, [...CLI_FROM_SOURCE, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function runCliSync(...args: string[]): CliResult {
  return runWith({}, args);
}
/** runCliSync with extra environment variables. */
runCliSync.withEnv =
  (env: NodeJS.ProcessEnv) =>
  (...args: string[]): CliResult =>
    runWith(env, args);

/** Asynchronously, so a fake server in the test's own process keeps answering. */
export function runCli(...args: string[]): Promise<CliResult> {
  return runAsyncWith({}, args);
}
/** runCli with extra environment variables (undefined: removed). */
runCli.withEnv =
  (env: NodeJS.ProcessEnv) =>
  (...args: string[]): Promise<CliResult> =>
    runAsyncWith(env, args);

function runAsyncWith(env: NodeJS.ProcessEnv, args: string[]): Promise<CliResult> {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete merged[k];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI_FROM_SOURCE, ...args], { stdio: 'pipe', env: merged });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}
