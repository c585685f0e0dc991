/**
 * `powprime moduli`: OpenSSH moduli(5) groups (sshd's
 * diffie-hellman-group-exchange), generated from the seeded safe-prime
 * search, resumable with --out; `--screen FILE` checks a moduli file instead
 * (moduli-screen.ts). docs/moduli.md is the admin's guide.
 */
import type { Command } from 'commander';
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { InterruptedError } from '../errors.ts';
import { MODULI_MAX_BITS, MODULI_MIN_BITS } from '../moduli/format.ts';
import { generateModuli } from '../moduli/generate.ts';
import { LATEST_STREAM } from '../prime/stream.ts';
import { parseSeed, randomSeed } from '../prime/seed.ts';
import { DEFAULT_QUEUE_NAME } from '../queue/connection.ts';
import { checkCount, checkInteger, checkOneOf, checkRounds, checkThreads } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { interruptSignal } from './interrupt.ts';
import { resumeModuli } from './moduli-file.ts';
import { isQuiet } from './progress-mode.ts';
import { SearchProgress } from './search-progress.ts';

export interface ModuliOpts {
  bits?: string;
  count?: string;
  seed?: string;
  threads?: string;
  backend: string;
  rounds?: string;
  out?: string;
  json?: boolean;
  screen?: string;
}

/** `2048,3072,8192`: sizes in bits, each once, in the order given. */
export function parseSizes(text: string): number[] {
  const sizes = text.split(',').map((part) => checkInteger('--bits', parseIntArg('--bits', part.trim()), MODULI_MIN_BITS, MODULI_MAX_BITS));
  const twice = sizes.find((b, i) => sizes.indexOf(b) !== i);
  if (twice !== undefined) throw new RangeError(`--bits names ${twice} twice`);
  return sizes;
}

/** `1 new modulus`, `3 new moduli`: the noun's plural is not plural()'s. */
function moduliCount(n: number, adjective = ''): string {
  return `${n} ${adjective}${n === 1 ? 'modulus' : 'moduli'}`;
}

export function registerModuli(program: Command): void {
  program
    .command('moduli')
    .description("OpenSSH moduli (sshd's Diffie-Hellman group exchange): safe primes with ssh-keygen's generator, resumable with --out; --screen checks a moduli file")
    .option('--bits <list>', `sizes in bits, comma-separated, each ${MODULI_MIN_BITS}-${MODULI_MAX_BITS} (e.g. 3072,4096,8192)`)
    .option('--count <C>', 'moduli per size (with --out: in the file, counting earlier runs)')
    .option('--seed <S>', 'search seed, decimal or 0x: the same seed gives the same moduli (default: taken from --out, else random and reported)')
    .option('--threads <n>', 'worker threads (default: one per core)')
    .option('--backend <name>', 'auto, native or js', 'auto')
    .option('--rounds <n>', 'Miller-Rabin rounds on q after Baillie-PSW (default by size); the tries field is this plus one')
    .option('--out <file>', 'append the moduli to this file; rerunning the same command resumes where it ends')
    .option('--json', 'print a JSON summary (with --out or --screen)')
    .option('--screen <file>', 'check a moduli file (the system one, ssh-keygen candidates, ours): the good groups to stdout or --out, each bad line named')
    .addHelpText(
      'after',
      '\nExamples:\n  powprime moduli --bits 3072,4096,8192 --count 20 --out moduli   # Ctrl-C, then the same command resumes\n' +
        '  powprime moduli --screen /etc/ssh/moduli --out checked            # keep the groups that pass\n' +
        '  sudo cp moduli /etc/ssh/moduli                                    # after checking it: docs/moduli.md',
    )
    .action(async (opts: ModuliOpts) => {
      if (opts.screen !== undefined) {
        for (const [flag, v] of Object.entries({ '--bits': opts.bits, '--count': opts.count, '--seed': opts.seed })) if (v !== undefined) throw new RangeError(`${flag} does not go with --screen`);
        await (await import('./moduli-screen.ts')).screenModuli(opts.screen, opts);
        return;
      }
      if (opts.bits === undefined) throw new RangeError('--bits is needed (or --screen FILE to check a moduli file)');
      if (opts.count === undefined) throw new RangeError('--count is needed: how many moduli of each size');
      const sizes = parseSizes(opts.bits);
      const count = Number(checkCount('--count', parseIntArg('--count', opts.count)));
      const threads = opts.threads === undefined ? undefined : checkThreads('--threads', parseIntArg('--threads', opts.threads));
      const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
      const rounds = opts.rounds === undefined ? undefined : checkRounds('--rounds', parseIntArg('--rounds', opts.rounds));
      if (opts.json && opts.out === undefined) throw new RangeError('--json goes with --out (or --screen): without it the moduli lines are the output');
      const resumed = await resumeModuli(opts.out, { sizes, seed: opts.seed === undefined ? undefined : parseSeed('--seed', opts.seed), base: 0, stride: 1 });
      const { out, done } = resumed;
      const seed = resumed.seed ?? randomSeed();
      const tty = Boolean(process.stderr.isTTY) && !isQuiet();
      const earlier = [...done.values()].reduce((a, b) => a + b, 0);
      if (tty && earlier) process.stderr.write(`resuming ${opts.out}: ${earlier} of ${count * sizes.length} done, seed ${seed}\n`);
      else if (tty && opts.seed === undefined) process.stderr.write(`seed ${seed}\n`);
      let found = 0;
      try {
        if (out && resumed.needsHeader) out.append({ kind: 'header', seed, stream: LATEST_STREAM });
        for (const bits of sizes) {
          const have = done.get(bits) ?? 0;
          if (have >= count) continue;
          const progress = new SearchProgress({ target: null, queueName: DEFAULT_QUEUE_NAME, wanted: count, earlier: have, label: `${bits}-bit moduli` });
          try {
            for await (const m of generateModuli({
              bits,
              count: count - have,
              seed,
              startIndex: have,
              backend,
              signal: interruptSignal,
              ...(threads !== undefined ? { threads } : {}),
              ...(rounds !== undefined ? { rounds } : {}),
            })) {
              if (out) out.append({ kind: 'entry', entry: m.entry });
              else progress.print(`${m.line}\n`);
              progress.found++;
              found++;
              progress.show({ rate: `${((performance.now() - progress.started) / progress.found / 1000).toFixed(2)} s/modulus` });
            }
          } finally {
            progress.stop();
          }
        }
      } catch (err) {
        if (!interruptSignal.aborted) throw err;
        const { signal } = interruptSignal.reason as InterruptedError;
        throw new InterruptedError(signal, `${moduliCount(found, 'new ')} kept; ${opts.out ? 'rerun the same command to resume' : 'rerun with --seed and --out to make a run resumable'}`);
      } finally {
        out?.close();
      }
      if (!opts.out) return;
      const total = earlier + found;
      if (opts.json) process.stdout.write(`${JSON.stringify({ out: opts.out, found, total, seed: seed.toString(), bits: sizes })}\n`);
      else process.stdout.write(`${moduliCount(found, 'new ')}; ${total} in ${opts.out} (seed ${seed})\n`);
    });
}
