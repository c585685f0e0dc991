// An ES module user of the installed package (run by scripts/consumer-check.sh).
import { createHash } from 'node:crypto';
import { backendInfo, closePool, isSafePrime, solvePow, PowprimeError } from 'powprime';
import { ManualClock } from 'powprime/testing';

const info = backendInfo();
if (info.backend !== 'native') throw new Error(`expected the native backend, got ${info.backend}: ${info.nativeError}`);
const { solution } = await solvePow({ nonce: 'esm', difficulty: 3 });
if (!createHash('sha256').update(`esm${solution}`).digest('hex').startsWith('000')) throw new Error(`bad solution ${solution}`);
if (!(await isSafePrime(23n))) throw new Error('23 is a safe prime');
if (typeof PowprimeError !== 'function' || typeof ManualClock !== 'function') throw new Error('exports missing');
await closePool();
console.log(`esm ok (${info.sha256})`);
