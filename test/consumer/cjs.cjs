// A CommonJS user of the installed package (Node 20.19+ can require() ES modules).
const { createHash } = require('node:crypto');
const { backendInfo, isSafePrimeSync, solvePow, closePool } = require('powprime');
const { startFakeServices } = require('powprime/testing');

const info = backendInfo();
if (info.backend !== 'native') throw new Error(`expected the native backend, got ${info.backend}: ${info.nativeError}`);
if (!isSafePrimeSync(23n) || isSafePrimeSync(29n)) throw new Error('wrong safe-prime verdicts');
if (typeof startFakeServices !== 'function') throw new Error('powprime/testing missing');
solvePow({ nonce: 'cjs', difficulty: 3 })
  .then(({ solution }) => {
    if (!createHash('sha256').update(`cjs${solution}`).digest('hex').startsWith('000')) throw new Error(`bad solution ${solution}`);
    console.log(`cjs ok (${info.sha256})`);
    return closePool();
  })
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
