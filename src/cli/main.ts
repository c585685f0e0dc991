#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { backendInfo } from '../backend.ts';
import { BackendUnavailableError, InterruptedError, PowExhaustedError } from '../errors.ts';
import { registerBench } from './bench.ts';
import { registerSolve } from './solve.ts';
import { registerCheck } from './check.ts';
import { registerSearch } from './search.ts';
import { registerFakeServices } from './fake-services.ts';
import { registerQuestion } from './question.ts';
import { registerRegistry } from './registry.ts';
import { registerAds } from './ads.ts';
import { NotSafePrimeError } from '../clients/registry-errors.ts';
import { NetworkError, ProtocolError, RateLimitWaitError, ServiceError, TimeoutError } from '../clients/errors.ts';
import { packageVersion } from '../package-root.ts';


function versionText(): string {
  const info = backendInfo();
  const lines = [`powprime ${packageVersion()}`, `backend: ${info.backend}`, `sha256: ${info.sha256}`, `bignum: ${info.bignum}`];
  if (info.nativeError) lines.push(`native: unavailable (${info.nativeError})`);
  for (const r of info.refused) lines.push(`refused: ${r}`);
  return lines.join('\n');
}

/** Errors the user can act on: one line and exit code 2, never a stack trace. */
function isUserError(err: unknown): err is Error {
  return (
    err instanceof TypeError ||
    err instanceof RangeError ||
    err instanceof PowExhaustedError ||
    err instanceof BackendUnavailableError ||
    err instanceof NotSafePrimeError
  );
}

async function main(): Promise<void> {
  const program = new Command();
  program
    .name('powprime')
    .description('proof of work and safe primes, on a native core with a TypeScript fallback')
    .version(versionText(), '-V, --version')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  registerSolve(program);
  registerCheck(program);
  registerSearch(program);
  registerQuestion(program);
  registerRegistry(program);
  registerAds(program);
  registerBench(program);
  registerFakeServices(program);
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    if (isUserError(err)) {
      process.stderr.write(`powprime: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (err instanceof ServiceError || err instanceof ProtocolError || err instanceof TimeoutError || err instanceof NetworkError || err instanceof RateLimitWaitError) {
      process.stderr.write(`powprime: ${err.message}\n`);
      process.exitCode = 1;
      return;
    }
    if (err instanceof InterruptedError) {
      process.stderr.write('powprime: interrupted\n');
      process.exitCode = 130;
      return;
    }
    process.stderr.write(`powprime: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}

await main();
