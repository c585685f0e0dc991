/**
 * `powprime search`: the command, and the order of a run: flags, resume from
 * --out, registration of earlier primes, then the search here or on a queue.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { MAX_SEARCH_BITS, MIN_SEARCH_BITS } from '../limits.ts';
import { randomSeed } from '../prime/seed.ts';
import { searchSafePrimes } from '../prime/search.ts';
import { indexesCrowd, LATEST_STREAM } from '../prime/stream.ts';
import { DEFAULT_QUEUE_NAME } from '../queue/connection.ts';
import type { RegistrationQueue } from '../queue/registration.ts';
import { interruptSignal } from './interrupt.ts';
import { interruptedKeeping, keepingNothing } from './interrupted-run.ts';
import type { SearchLine } from './jsonl-file.ts';
import { wholeLinesIn } from './whole-lines.ts';
import { plural } from './plural.ts';
import { isQuiet } from './progress-mode.ts';
import { KEYSTORE_OPTION, makeRegistrar } from './registrar-flags.ts';
import { parseSearchFlags, type SearchFormat, type SearchOpts } from './search-flags.ts';
import { SearchProgress } from './search-progress.ts';
import { stopWhenReaderGoes } from './reader-gone.ts';
import { searchOnQueue } from './search-queue.ts';
import { Registering } from './search-register.ts';
import { emptyShardNotice } from './shard.ts';
import { resumeOut } from './search-resume.ts';
import { summary } from './search-summary.ts';

/** The primes one search command produces: the local pool's, or the queue's. */
interface Found {
  prime: bigint;
  index: bigint;
  elapsedMs: number;
}

export function registerSearch(program: Command): void {
  program
    .command('search')
    .description('find safe primes of a bit length; results keyed by (bits, seed, index), resumable with --out')
    .option('--bits <B>', `bit length (${MIN_SEARCH_BITS}-${MAX_SEARCH_BITS}; default: taken from --out)`)
    .requiredOption('--count <C>', 'how many primes (with --out: in the file, counting earlier runs)')
    .option('--stream <v>', 'stream version 1 or 2: how indexes map to primes (default: taken from --out, else 2)')
    .option('--seed <S>', 'search seed, decimal or 0x (default: taken from --out, else random and reported)')
    .option('--threads <n>', 'worker threads (default: one per core)')
    .option('--backend <name>', 'auto, native or js', 'auto')
    .option('--out <file.jsonl>', 'append one JSON line per prime; rerunning resumes where the file ends')
    .option('--json', 'with --out: print a JSON summary (without it each prime is a JSON line already)')
    .option('--hex', 'print each prime as 0x hex on stdout (not with --out: the file keeps decimal, for resume and merge)')
    .option('--format <f>', 'without --out: json (one JSON line per prime, the default), number (the bare prime in decimal, one per line) or hex (0x…)')
    .option('--shard <i/n|auto>', 'run only indexes ≡ i-1 (mod n) of the --count; auto reads a Kubernetes, Slurm or GNU parallel index (needs --seed)')
    .option('--shard-count <n>', 'with --shard auto: the number of shards (Kubernetes Indexed Jobs, GNU parallel)')
    .option('--queue <redis-url>', 'coordinate `powprime worker` processes through Redis instead of searching here')
    .option('--queue-name <name>', 'with --queue: the queue to use', DEFAULT_QUEUE_NAME)
    .option('--chunk-length <n>', 'with --queue: candidates per chunk job (default by size: a second or two of one core)')
    .option('--register', 'register each prime with the prime registry and keep its keys')
    .option('--base-url <url>', 'with --register: registry address (or POWPRIME_REGISTRY_URL)')
    .option('--state-dir <dir>', 'with --register: registry client state')
    .option(KEYSTORE_OPTION[0], `with --register: ${KEYSTORE_OPTION[1]}`)
    .option('--max-wait <seconds>', 'with --register: fail instead of waiting longer for a rate limit or a ban')
    .option('--no-limits', 'with --register: skip client-side rate limits (only for a local server)')
    .option('--register-rate <n/seconds>', 'with --queue --register: at most n registrations per that many seconds, across every process on the queue (default: no limit, as the registry shows none)')
    .addHelpText(
      'after',
      '\nExamples:\n  powprime search --bits 2048 --count 32 --out p2048.jsonl   # Ctrl-C, then the same command resumes\n' +
        '  powprime search --bits 1024 --count 100 --seed 7 --shard 1/4 --out s1.jsonl   # a quarter; merge the four\n' +
        '  powprime search --bits 3072 --count 8 --queue redis://localhost:6379   # chunks run by `powprime worker`\n' +
        '  powprime search --bits 2048 --count 4 --format hex   # just the primes, as `openssl prime -generate -safe`\n' +
        '\nThe primes of one seed lie close together: each index starts 4·bits² candidates after the one before\n' +
        '(stream 2, so that one deep sieve serves them all), so they share their leading bits. Each is a sound\n' +
        'safe prime; for Diffie-Hellman groups that should not look related (one per service, say), give each\n' +
        'its own --seed (the default seed is random).',
    )
    .action(async (opts: SearchOpts) => {
      const flags = parseSearchFlags(opts);
      const { count, threads, backend, shard, target, registerRate, chunkLength, base, stride, wanted, format } = flags;
      const { outFile, existing, seed: resumedSeed, stream: resumedStream, bits } = await keepingNothing(resumeOut(opts.out, flags), 'new primes', opts.out);
      const stream = resumedStream ?? LATEST_STREAM;
      if (indexesCrowd(bits, BigInt(count))) {
        process.emitWarning(`${count} indexes crowd the ${bits}-bit range: near indexes may give the same prime (more bits give distinct ones)`, { code: 'POWPRIME_INDEXES_CROWD' });
      }
      if (shard && resumedSeed === undefined) throw new RangeError('--shard needs --seed: every shard must search the same run');
      const seed = resumedSeed ?? randomSeed();
      const startIndex = base + existing.lines.length * stride;
      const remaining = wanted - existing.lines.length;
      // The lines about the run (seed, resume, shard) are for a person at a terminal, and not under --quiet.
      const tty = Boolean(process.stderr.isTTY) && !isQuiet();
      if (opts.out && tty && existing.lines.length) {
        process.stderr.write(`resuming ${opts.out}: ${existing.lines.length} of ${wanted} done, seed ${seed}\n`);
      } else if (opts.seed === undefined && !existing.lines.length && (tty || (format !== 'json' && !isQuiet()))) {
        // Bare primes carry no seed: a random one is said even into a log, or the run could never be made again.
        process.stderr.write(`seed ${seed}\n`);
      }
      if (shard && wanted === 0) process.stderr.write(emptyShardNotice(shard, count));
      else if (shard && tty) process.stderr.write(`shard ${shard.k + 1} of ${shard.n} (${shard.source}): ${wanted} of the ${count} indexes\n`);
      const registering = opts.register ? new Registering(makeRegistrar(opts), bits) : null;
      if (registering) {
        await registering.start();
        // Primes found by earlier runs and not yet registered (a crash between the two steps).
        for (const l of existing.lines) await registering.register(BigInt(l.prime), { earlier: true });
      }
      if (remaining <= 0) {
        // A shard with no index still leaves its (empty) file, as moduli's does: merge is given every shard's.
        if (opts.out && wanted === 0 && !existsSync(opts.out)) writeFileAtomic(opts.out, '', 0o644);
        // Counted while the file is still locked: a run starting next must not change it under the count.
        const total = linesOnDisk(opts.out, existing.lines.length);
        outFile?.close();
        registering?.close();
        summary(opts, { found: 0, total, seed }, registering);
        return;
      }

      const out = outFile;
      // The primes go to stdout alone: a reader that left wants no more of them (reader-gone.ts says when this is safe).
      const unwatch = !out && !registering && !target ? stopWhenReaderGoes() : () => {};
      // SIGINT, SIGTERM and SIGHUP abort it; a second one leaves at once (e.g. while Redis does not answer).
      const controller = { signal: interruptSignal };
      // The lines --out holds at the end, counted before its lock is let go.
      let total = 0;
      const progress = new SearchProgress({ target, queue: opts.queue, queueName: opts.queueName, wanted, earlier: existing.lines.length });
      const emit = async (r: Found, registrations: RegistrationQueue | null = null): Promise<void> => {
        const line: SearchLine = { prime: r.prime.toString(), bits, seed: seed.toString(), index: Number(r.index), elapsedMs: Math.round(r.elapsedMs), ...(stream === 1 ? {} : { stream }) };
        if (out) out.append(line);
        else progress.print(`${printed(line, r.prime, format, opts.hex === true)}\n`);
        progress.found++;
        if (registrations) await registrations.submit({ prime: r.prime.toString(), bits, seed: seed.toString(), index: r.index.toString() });
        else await registering?.register(r.prime);
        const perPrime = (performance.now() - progress.started) / progress.found / 1000;
        progress.show({ rate: `${perPrime.toFixed(2)} s/prime` });
      };
      try {
        if (target) {
          await searchOnQueue({ target, bits, seed, stream, startIndex, stride, remaining, chunkLength, registerRate, registering, signal: controller.signal, progress, emit });
        } else {
          for await (const r of searchSafePrimes({
            bits,
            count: remaining,
            seed,
            stream,
            startIndex,
            stride,
            backend,
            signal: controller.signal,
            ...(threads !== undefined ? { threads } : {}),
          })) {
            await emit(r);
          }
        }
        total = linesOnDisk(opts.out, existing.lines.length + progress.found);
      } catch (err) {
        if (!controller.signal.aborted) throw err;
        progress.stop();
        throw interruptedKeeping(plural(progress.found, 'new prime'), opts.out);
      } finally {
        unwatch();
        progress.stop();
        out?.close();
        registering?.close();
      }
      summary(opts, { found: progress.found, total, seed }, registering);
    });
}

/** A prime as stdout shows it without --out: its JSON line, or the bare number (--format). */
function printed(line: SearchLine, prime: bigint, format: SearchFormat, hex: boolean): string {
  if (format === 'number') return prime.toString();
  if (format === 'hex') return `0x${prime.toString(16)}`;
  return JSON.stringify(hex ? { ...line, prime: `0x${prime.toString(16)}` } : line);
}

/**
 * The lines --out holds at the end, counted on disk: `written` unless another
 * process changed the file behind the lock (which only binds powprime), and
 * then a warning says so rather than a summary that claims lines not there.
 */
function linesOnDisk(out: string | undefined, written: number): number {
  if (out === undefined) return written;
  const onDisk = wholeLinesIn(out);
  if (onDisk === null || onDisk === written) return written;
  process.emitWarning(`${out} holds ${onDisk} lines, not the ${written} this run and earlier ones wrote: another process changed it (rerun the same command to check and complete it)`, {
    code: 'POWPRIME_OUT_CHANGED',
  });
  return onDisk;
}
