// Runs the built package (dist/) on whatever Node runs it — the arm64 Node
// under qemu-aarch64, or node.exe under Wine, with the cross-built addon — and prints what it
// computed as JSON. test/arm64.test.ts compares that with independent oracles
// and with the x64 build. Plain JavaScript: the arm64 Node has no TS loader.
import { backendInfo, closePool, isProbablePrimeSync, isSafePrimeSync, searchSafePrimes, sha256, solvePow } from '../../dist/src/index.js';
import { native } from '../../dist/src/native.js';
import { messages, nonces, numbers, SEARCH } from './inputs.mjs';

// The addon's own list of message hashers rides along with the public info.
const info = { ...backendInfo(), hashers: native()?.backendInfo().hashers ?? [] };
const hex = (b) => Buffer.from(b).toString('hex');
// Every message hasher (on x64 the AVX2 and AVX-512 kernels only search PoW groups).
const sha = Object.fromEntries(info.hashers.map((k) => [k, messages().map((m) => hex(sha256(m, { kernel: k })))]));
const pow = [];
for (const nonce of nonces()) pow.push((await solvePow({ nonce, difficulty: 2 }, { backend: info.backend, threads: 1 })).solution);
const verdicts = numbers().map((n) => [isProbablePrimeSync(n, { backend: info.backend }), isSafePrimeSync(n, { backend: info.backend })]);
const primes = [];
for await (const r of searchSafePrimes({ ...SEARCH, backend: info.backend })) primes.push(r.prime.toString());
await closePool();
process.stdout.write(JSON.stringify({ arch: process.arch, info, sha, pow, verdicts, primes }));
