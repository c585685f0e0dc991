/**
 * `powprime backend`: which backend runs the work here and what it says of
 * itself (the SHA-256 and bignum kernels in force, the timing that ranked the
 * PoW kernels, the WebAssembly PoW kernel, kernels refused, why the addon
 * did not load). Not part of --version, which stays fast: this loads the
 * addon and runs its kernels' self-tests and timing.
 */
import type { Command } from 'commander';
import { backendInfo, type BackendInfo } from '../backend.ts';

export function registerBackend(program: Command): void {
  program
    .command('backend')
    .description('which backend and kernels run the work here (loads the native addon, which self-tests and times its kernels)')
    .option('--json', "print it as one JSON object: the fields of the library's backendInfo(), rates in hashes per second")
    .action((opts: { json?: boolean }) => {
      const info = backendInfo();
      process.stdout.write(opts.json ? `${JSON.stringify(asJson(info))}\n` : `${text(info)}\n`);
    });
}

/** Rates as whole hashes per second: the JSON convention keeps numbers exact and plain. */
function asJson(info: BackendInfo): BackendInfo {
  return { ...info, kernelRates: Object.fromEntries(Object.entries(info.kernelRates).map(([k, r]) => [k, Math.round(r)])) };
}

/** The first kernel is the fastest by the timing at load unless POWPRIME_POW_KERNEL put it there. */
function howChosen(first: string): string {
  return process.env.POWPRIME_POW_KERNEL === first ? 'chosen by POWPRIME_POW_KERNEL; timed at load' : 'chosen by a timing at load';
}

function text(info: BackendInfo): string {
  const timed = info.kernels.map((k) => `${k} ${(info.kernelRates[k]! / 1e6).toFixed(1)} M/s`).join(', ');
  // POWPRIME_BACKEND=wasm: the addon loaded (sha256() hashes with it), but its bignum kernels do not run the prime work.
  const unused = info.backend !== 'native';
  const lines = [
    `backend: ${info.backend}`,
    `sha256: ${info.sha256}${timed ? ` (${howChosen(info.kernels[0]!)}: ${timed})` : ''}`,
    `bignum: ${info.bignum}${info.bignumKernels.length ? ` (${unused ? "the addon's, not in use" : 'usable'}: ${info.bignumKernels.join(', ')})` : ''}`,
    `wasm: ${info.wasm ?? `unavailable (${info.wasmError})`}`,
    // Said only where PoW runs elsewhere than the rest: the wasm backend has a PoW kernel only.
    ...(info.powBackend !== info.backend ? [`pow backend: ${info.powBackend}`] : []),
  ];
  if (info.nativeError) lines.push(`native: unavailable (${info.nativeError})`);
  for (const r of [...info.refused, ...info.bignumRefused]) lines.push(`refused: ${r}`);
  return lines.join('\n');
}
