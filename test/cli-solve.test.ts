import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ENTRY, runCliSync as cli } from './helpers/cli.ts';
import { jsonConventionErrors } from './helpers/json-convention.ts';
import { nodeSha256Hex } from './helpers/oracles.ts';
import { startCli } from './helpers/processes.ts';

describe('powprime solve', () => {
  it('prints a solution node:crypto accepts', () => {
    const r = cli('solve', 'cli-nonce', '4');
    expect(r.status).toBe(0);
    const s = r.stdout.trim();
    expect(s).toMatch(/^[0-9]{1,32}$/);
    expect(nodeSha256Hex(`cli-nonce${s}`).startsWith('0000')).toBe(true);
  });

  it.each(['native', 'js'])('--json with --backend %s gives the documented fields', (backend) => {
    const r = cli('solve', 'cli-json', '3', '--json', '--threads', '2', '--backend', backend === 'native' ? 'auto' : 'js');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(out).sort()).toEqual(['attempts', 'backend', 'counter', 'elapsedMs', 'solution']);
    expect(typeof out.counter).toBe('string');
    expect(BigInt(out.counter as string)).toBeGreaterThanOrEqual(0n);
    expect(nodeSha256Hex(`cli-json${out.solution as string}`).startsWith('000')).toBe(true);
  });

  it('no solution within --max-attempts → one line, exit code 1 (the work found nothing)', () => {
    const r = cli('solve', 'n', '12', '--max-attempts', '1000');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^powprime: no solution among the first 1000/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  it('a difficulty no machine finishes says so up front, in readable numbers, and what bounds it', async () => {
    const run = startCli(['solve', 'n', '20', '--threads', '1']);
    await run.waitFor((_out, err) => err.includes('bounds the search'), 'the up-front note');
    run.child.kill('SIGTERM');
    const { status, stderr } = await run.exited;
    expect(status).toBe(143);
    // 16^20 ≈ 1.2·10^24 candidates: years at any rate, as a power of ten, never a run of digits.
    expect(stderr).toMatch(/^powprime: difficulty 20 expects about 1\.2×10\^24 candidates: about \d\.\d×10\^\d+ years at this machine's [\d.]+ [kM]\/s; --max-attempts N bounds the search\n/);
  });

  it.each([
    [['solve', 'n', '65'], /difficulty/],
    [['solve', 'n', '-1'], /difficulty/],
    [['solve', 'n', '2.5'], /difficulty/],
    [['solve', 'n', 'abc'], /difficulty/],
    [['solve', 'n', '3', '--threads', '0'], /--threads/],
    [['solve', 'n', '3', '--backend', 'gpu'], /--backend/],
    [['solve', 'n'], /missing required argument/],
    // An unset $NONCE gives an empty argument: refused, not solved for the empty string.
    [['solve', '', '3'], /^powprime: nonce must not be empty \(an unset variable\?\)\n$/],
  ])('bad input %j → one line on stderr, exit code 2', (args, message) => {
    const r = cli(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^powprime: /);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('--version prints the version; `backend` names the active kernel', () => {
    const v = cli('--version');
    expect(v.status).toBe(0);
    expect(v.stdout).toMatch(/^powprime \d+\.\d+\.\d+\n$/);
    const r = cli('backend');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^backend: (native|js)$/m);
    expect(r.stdout).toMatch(/^sha256: (avx512 x48|avx512-lean x32|sha-ni x2|sha-ni x5|avx2 x8|armv8-sha2 x2|scalar|js)/m);
  });

  it('backend --json: the fields of backendInfo(), in the JSON convention, rates for exactly the usable kernels', () => {
    const r = cli('backend', '--json');
    expect(r.status).toBe(0);
    const info = JSON.parse(r.stdout) as Record<string, unknown> & { kernels: string[]; kernelRates: Record<string, number> };
    expect(Object.keys(info).sort()).toEqual(['backend', 'bignum', 'bignumKernels', 'bignumRefused', 'kernelRates', 'kernels', 'nativeError', 'powBackend', 'refused', 'sha256', 'wasm', 'wasmError']);
    expect(jsonConventionErrors(info, { mapKeysAt: ['$.kernelRates'] })).toEqual([]);
    expect(Object.keys(info.kernelRates).sort()).toEqual([...info.kernels].sort());
    for (const rate of Object.values(info.kernelRates)) expect(Number.isInteger(rate) && rate > 0).toBe(true);
    const js = JSON.parse(cli.withEnv({ POWPRIME_BACKEND: 'js' })('backend', '--json').stdout) as Record<string, unknown>;
    expect(js).toMatchObject({ backend: 'js', powBackend: 'js', sha256: 'js', bignum: 'js', kernels: [], kernelRates: {}, nativeError: 'POWPRIME_BACKEND=js' });
    // Node has WebAssembly SIMD128: the kernel loads, and POWPRIME_BACKEND=wasm gives PoW to it and the prime work to js.
    expect(info).toMatchObject({ wasm: 'simd128', wasmError: null });
    const wasm = JSON.parse(cli.withEnv({ POWPRIME_BACKEND: 'wasm' })('backend', '--json').stdout) as Record<string, unknown>;
    // The prime work's kernels are said as what runs it (the TS backend, exponentiations in WebAssembly), not the addon's;
    // sha256() still hashes with the addon's kernel, and says so.
    expect(wasm).toMatchObject({ backend: 'js', powBackend: 'wasm', wasm: 'simd128', sha256: info.sha256, bignum: 'wasm + js' });
    // Where the addon does not load, 'auto' gives proof of work to the WebAssembly kernel, and says why once.
    const noAddon = cli.withEnv({ POWPRIME_ADDON_PATH: path.join(os.tmpdir(), 'powprime-no-such-addon.node') });
    // ... and the TS prime backend's exponentiations to the WebAssembly modexp kernel where timed faster.
    expect(JSON.parse(noAddon('backend', '--json').stdout)).toMatchObject({ backend: 'js', powBackend: 'wasm', wasm: 'simd128', bignum: 'wasm + js' });
    const solved = noAddon('solve', 'hello', '3', '--json');
    expect(solved.status).toBe(0);
    const answer = JSON.parse(solved.stdout) as { backend: string; solution: string };
    expect(answer.backend).toBe('wasm');
    expect(nodeSha256Hex(`hello${answer.solution}`)).toMatch(/^000/);
    // One reason, said once, not a reason inside a reason.
    expect(solved.stderr).toMatch(/using the WebAssembly kernel for proof of work: the native addon did not load \(tried [^()]*powprime-no-such-addon\.node: missing;/);
    expect(solved.stderr.match(/did not load/g)).toHaveLength(1);
  });

  it('POWPRIME_BACKEND=js forces the TS backend', () => {
    const r = spawnSync(process.execPath, [...CLI_ENTRY, 'solve', 'forced', '2', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, POWPRIME_BACKEND: 'js' },
    });
    expect(JSON.parse(r.stdout).backend).toBe('js');
  });
});
