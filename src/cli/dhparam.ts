import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { writeFileAtomic } from '../clients/http/state-file.ts';
import { DH_MAX_BITS, DH_MIN_BITS, generateDhParams } from '../prime/dhparam.ts';
import { parseSeed, randomSeed } from '../prime/search.ts';
import { checkOneOf } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { interruptSignal } from './interrupt.ts';
import { StatusLine } from './status.ts';

interface DhparamOpts {
  out?: string;
  seed?: string;
  threads?: string;
  backend: string;
  json?: boolean;
}

export function registerDhparam(program: Command): void {
  program
    .command('dhparam')
    .description('Diffie-Hellman parameters (PKCS#3 PEM, g = 2, p a safe prime ≡ 23 mod 24), like `openssl dhparam BITS`')
    .argument('<bits>', `size of p (${DH_MIN_BITS}-${DH_MAX_BITS})`)
    .option('--out <file.pem>', 'write the PEM here (whole or not at all) instead of stdout')
    .option('--seed <S>', 'search seed, decimal or 0x: the same seed gives the same parameters (default: random, reported)')
    .option('--threads <n>', 'worker threads (default: one per core)')
    .option('--backend <name>', 'auto, native or js', 'auto')
    .option('--json', 'print {"bits","seed","elapsedMs","out"} (with --out) or the PEM inside {"pem",…}')
    .action(async (bitsText: string, opts: DhparamOpts) => {
      const bits = parseIntArg('bits', bitsText, DH_MIN_BITS, DH_MAX_BITS);
      const threads = opts.threads === undefined ? undefined : parseIntArg('--threads', opts.threads, 1, 256);
      const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
      const seed = opts.seed === undefined ? randomSeed() : parseSeed('--seed', opts.seed);
      // Refuse an unusable --out before minutes of work, not after.
      if (opts.out !== undefined) {
        if (statSync(path.dirname(path.resolve(opts.out))).isDirectory() === false) throw new RangeError(`--out ${opts.out}: its folder is not a directory`);
        if (statSync(opts.out, { throwIfNoEntry: false })?.isDirectory()) throw new RangeError(`--out ${opts.out} is a directory; give a file name`);
      }
      const status = new StatusLine();
      try {
        const r = await generateDhParams({
          bits,
          seed,
          backend,
          signal: interruptSignal,
          ...(threads !== undefined ? { threads } : {}),
          onProgress: (p) => status.update(`dhparam ${bits}: ${p.tested} candidates tested, ${(p.elapsedMs / 1000).toFixed(1)} s`),
        });
        status.clear();
        // DH parameters are public: readable by the servers that load them.
        if (opts.out !== undefined) writeFileAtomic(opts.out, r.pem, 0o644);
        const facts = { bits, seed: seed.toString(), elapsedMs: Math.round(r.elapsedMs) };
        if (opts.json) process.stdout.write(`${JSON.stringify(opts.out !== undefined ? { ...facts, out: opts.out } : { ...facts, pem: r.pem })}\n`);
        else if (opts.out === undefined) process.stdout.write(r.pem);
        if (process.stderr.isTTY) process.stderr.write(`${bits}-bit DH parameters in ${(r.elapsedMs / 1000).toFixed(1)} s (seed ${seed})\n`);
      } finally {
        status.clear();
      }
    });
}
