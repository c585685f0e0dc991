/**
 * `powprime moduli`: OpenSSH moduli(5) groups (sshd's
 * diffie-hellman-group-exchange), generated from the seeded safe-prime
 * search here, as one shard of many, or on a queue of `powprime worker`s;
 * resumable with --out, put together with `merge`. `--screen FILE` checks a
 * moduli file instead (moduli-screen.ts). docs/moduli.md is the admin's guide.
 */
import { fstatSync } from 'node:fs';
import type { Command } from 'commander';
import { resolveBackend } from '../backend.ts';
import { formatModuliLine, MODULI_MAX_BITS, MODULI_MIN_BITS, type ModuliEntry } from '../moduli/format.ts';
import { generateModuli, moduliEntry } from '../moduli/generate.ts';
import { poolSize } from '../pool/pool.ts';
import { expectedTestsPerPrime } from '../prime/expectation.ts';
import { randomSeed } from '../prime/seed.ts';
import { sieveLimit } from '../prime/sieve-depth.ts';
import { LATEST_STREAM } from '../prime/stream.ts';
import { DEFAULT_QUEUE_NAME, loadQueueLibraries } from '../queue/connection.ts';
import { interruptSignal } from './interrupt.ts';
import { interruptedKeeping, keepingNothing } from './interrupted-run.ts';
import { encodeModuliLine } from './moduli-file.ts';
import { collectSizes } from './moduli-sizes.ts';
import { resumeModuli } from './moduli-resume.ts';
import { parseModuliFlags, type ModuliFlags, type ModuliOpts } from './moduli-flags.ts';
import { isQuiet } from './progress-mode.ts';
import { SearchProgress } from './search-progress.ts';
import { stopWhenReaderGoes } from './reader-gone.ts';
import { emptyShardNotice, shardSize } from './shard.ts';

/** `1 new modulus`, `3 new moduli`: the noun's plural is not plural()'s. */
function moduliCount(n: number, adjective = ''): string {
  return `${n} ${adjective}${n === 1 ? 'modulus' : 'moduli'}`;
}

export function registerModuli(program: Command): void {
  program
    .command('moduli')
    .description("OpenSSH moduli (sshd's Diffie-Hellman group exchange): safe primes with ssh-keygen's generator, resumable with --out; --screen checks a moduli file")
    // Repeated, the lists add up: `--bits 3072 --bits 8192` is both sizes, not the last.
    .option('--bits <list>', `sizes in bits, comma-separated or repeated, each ${MODULI_MIN_BITS}-${MODULI_MAX_BITS} (e.g. 3072,4096,8192)`, collectSizes)
    .option('--count <C>', 'moduli per size (with --out: in the file, counting earlier runs)')
    .option('--seed <S>', 'search seed, decimal or 0x: the same seed gives the same moduli (default: taken from --out, else random and reported)')
    .option('--threads <n>', 'worker threads (default: one per core)')
    .option('--backend <name>', 'auto, native or js', 'auto')
    .option('--rounds <n>', 'Miller-Rabin rounds on q after Baillie-PSW (default by size); the tries field is this plus one')
    .option('--out <file>', 'append the moduli to this file; rerunning the same command resumes where it ends (with --screen: the good groups replace it, whole, if that loses none of its own)')
    .option('--json', 'with --out: print a JSON summary')
    .option('--shard <i/n|auto>', 'run only the indexes ≡ i-1 (mod n) of each size; merge puts the shards together (needs --seed)')
    .option('--shard-count <n>', 'with --shard auto: the number of shards (Kubernetes Indexed Jobs, GNU parallel)')
    .option('--queue <redis-url>', 'coordinate `powprime worker` processes through Redis instead of searching here')
    .option('--queue-name <name>', 'with --queue: the queue to use', DEFAULT_QUEUE_NAME)
    .option('--screen <file>', 'check a moduli file (the system one, ssh-keygen candidates, ours; - reads stdin): the good groups to stdout or --out, each bad line named')
    .addHelpText(
      'after',
      '\nExamples:\n  powprime moduli --bits 3072,4096,8192 --count 20 --out moduli   # Ctrl-C, then the same command resumes\n' +
        '  powprime moduli --bits 8192 --count 64 --seed 7 --shard 1/4 --out m1   # a quarter; powprime merge m1 m2 m3 m4 --out moduli\n' +
        '  powprime moduli --screen /etc/ssh/moduli --out checked            # keep the groups that pass\n' +
        '  sudo install -m 644 moduli /etc/ssh/moduli                         # after checking it: docs/moduli.md',
    )
    .action(async (opts: ModuliOpts) => {
      if (opts.screen !== undefined) {
        await (await import('./moduli-screen.ts')).screenModuliFile(opts.screen, opts);
        return;
      }
      await runModuli(opts, parseModuliFlags(opts));
    });
}

async function runModuli(opts: ModuliOpts, flags: ModuliFlags): Promise<void> {
  const { sizes, count, threads, backend, rounds, shard, target } = flags;
  // Loaded before --out is opened: without the queue's optional libraries the run is refused with no file made.
  if (target) await loadQueueLibraries();
  const resumed = await keepingNothing(resumeModuli(opts.out, { sizes, seed: flags.seed, shard }), 'new moduli', opts.out);
  const { out, done } = resumed;
  const seed = resumed.seed ?? randomSeed();
  // This process runs indexes base, base+stride, … of each size: `wanted` of them.
  const base = shard?.k ?? 0;
  const stride = shard?.n ?? 1;
  const wanted = shard ? shardSize(shard, count) : count;
  const tty = Boolean(process.stderr.isTTY) && !isQuiet();
  const earlier = [...done.values()].reduce((a, b) => a + b, 0);
  if (tty && earlier) process.stderr.write(`resuming ${opts.out}: ${earlier} of ${wanted * sizes.length} done, seed ${seed}\n`);
  else if (tty && flags.seed === undefined) process.stderr.write(`seed ${seed}\n`);
  if (shard && wanted === 0) process.stderr.write(emptyShardNotice(shard, count, ' of each size'));
  else if (shard && tty) process.stderr.write(`shard ${shard.k + 1} of ${shard.n} (${shard.source}): ${wanted} of the ${count} indexes of each size\n`);
  let found = 0;
  let unwatch = (): void => {};
  try {
    const header = { kind: 'header', seed, stream: LATEST_STREAM, shard: shard ? { k: shard.k, n: shard.n } : null, indexes: null } as const;
    // On stdout too (sshd skips comments): what is saved from it can be merged, or resumed with --out.
    if (out && resumed.needsHeader) out.append(header);
    else if (!out) {
      process.stdout.write(`${encodeModuliLine(header)}\n`);
      if (!target) unwatch = stopWhenReaderGoes();
    }
    for (const bits of sizes) {
      const have = done.get(bits) ?? 0;
      if (have >= wanted) continue;
      const left = wanted - have;
      const startIndex = base + have * stride;
      // The search's own expectation at the depth it will sieve to (sieve-depth.ts), for the work left.
      const testsPerPrime = target ? undefined : expectedTestsPerPrime(bits, sieveLimit(bits, resolveBackend(backend), { indexesAhead: left / Math.min(threads ?? poolSize(), poolSize()) }));
      const progress = new SearchProgress({
        target,
        queue: opts.queue,
        queueName: opts.queueName,
        wanted,
        earlier: have,
        label: `${bits}-bit moduli`,
        tickFields: { bits },
        ...(testsPerPrime === undefined ? {} : { testsPerPrime }),
      });
      const keep = (entry: ModuliEntry): void => {
        if (out) out.append({ kind: 'entry', entry });
        else progress.print(`${formatModuliLine(entry)}\n`);
        progress.found++;
        found++;
        progress.show({ rate: `${((performance.now() - progress.started) / progress.found / 1000).toFixed(2)} s/modulus` });
      };
      try {
        if (target) {
          const { coordinate } = await import('../queue/coordinator.ts');
          await coordinate({
            target,
            bits,
            seed,
            stream: LATEST_STREAM,
            keep: 'sshGenerator',
            startIndex: BigInt(startIndex),
            stride: 1n,
            count: BigInt(left),
            signal: interruptSignal,
            // Workers run the default rounds (--rounds is refused with --queue).
            onPrime: (r) => keep(moduliEntry(r.prime, bits, -1)),
            onNotice: progress.notice,
            onProgress: (p) => progress.show({ held: p.held, workers: p.workers.length, candidateRate: p.rate }),
          });
          continue;
        }
        for await (const m of generateModuli({
          bits,
          count: left,
          seed,
          startIndex,
          stride,
          backend,
          signal: interruptSignal,
          onProgress: (p) => {
            progress.tests = p.tested;
            progress.show({});
          },
          ...(threads !== undefined ? { threads } : {}),
          ...(rounds !== undefined ? { rounds } : {}),
        })) {
          keep(m.entry);
        }
      } finally {
        progress.stop();
      }
    }
  } catch (err) {
    if (!interruptSignal.aborted) throw err;
    throw interruptedKeeping(moduliCount(found, 'new '), opts.out, stdoutIsFile());
  } finally {
    unwatch();
    out?.close();
  }
  if (!opts.out) return;
  const total = earlier + found;
  if (opts.json) process.stdout.write(`${JSON.stringify({ out: opts.out, found, total, seed: seed.toString(), bits: sizes, ...(shard ? { shard: `${shard.k + 1}/${shard.n}` } : {}) })}\n`);
  else process.stdout.write(`${moduliCount(found, 'new ')}; ${total} in ${opts.out} (seed ${seed})\n`);
}

/** Whether stdout goes to a regular file (`> saved`), which then resumes the run; a pipe or a terminal keeps nothing. */
function stdoutIsFile(): boolean {
  try {
    return fstatSync(1).isFile();
  } catch {
    return false; // no stdout at all: nothing saved
  }
}
