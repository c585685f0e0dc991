/** Runs the CLI in a child process: from source, or from dist/ when asked. */
import { spawn, spawnSync } from 'node:child_process';

/**
 * The arguments that start the CLI: the source through tsx, so an edit needs
 * no build; with POWPRIME_TEST_CLI=dist the built dist/ (as a user runs it),
 * which CI sets after building it from the same commit: each start then costs
 * about 0.2 s instead of 0.65, over hundreds of starts.
 */
export const CLI_ENTRY = process.env.POWPRIME_TEST_CLI === 'dist' ? ['dist/src/cli/main.js'] : ['--import', 'tsx', 'src/cli/main.ts'];

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

function runWith(env: NodeJS.ProcessEnv, args: string[]): CliResult {
  const r = spawnSync(process.execPath, [...CLI_ENTRY, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
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
    const child = spawn(process.execPath, [...CLI_ENTRY, ...args], { stdio: 'pipe', env: merged });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}
