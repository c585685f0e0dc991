import type { Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { searchSafePrimes } from '../prime/search.ts';
import { MAX_BITS, MIN_BITS } from '../prime/search-options.ts';
import { parseSeed, randomSeed } from '../prime/seed.ts';
import { checkOneOf } from '../validate.ts';
import { InterruptedError } from '../errors.ts';
import { interruptSignal } from './interrupt.ts';
import { terminalLine } from './terminal-text.ts';
import { formatRate, parseIntArg } from './args.ts';
import { isQuiet, progressEvent, progressMode } from './progress-mode.ts';
import { plural } from './plural.ts';
import { parseShard, shardSize } from './shard.ts';
import { DEFAULT_QUEUE_NAME, parseQueueTarget } from '../queue/connection.ts';
import type { RegistrationQueue } from '../queue/registration.ts';
import { JsonlOut, readExisting, type SearchLine } from './jsonl-file.ts';
import { checkLineFields, verifyLines } from './verify-lines.ts';
import { KEYSTORE_OPTION, makeRegistrar } from './registry.ts';
import type { Registrar } from '../clients/registry/registrar.ts';

interface SearchOpts {
  bits: string;
  count: string;
  seed?: string;
  threads?: string;
  backend: string;
  out?: string;
  json?: boolean;
  hex?: boolean;
  register?: boolean;
  baseUrl?: string;
  stateDir?: string;
  keystore?: string;
  maxWait?: string;
  limits?: boolean;
  shard?: string;
  shardCount?: string;
  queue?: string;
  queueName: string;
  chunkLength?: string;
  registerRate?: string;
}

/** Registration of found primes: requirements read once, tallies for the summary. */
class Registering {
  readonly tally = { registered: 0, 'registered-elsewhere': 0, rejected: 0, 'key-lost': 0, 'below-requirements': 0 };
  private minBits: number | null = null;

  constructor(
    private readonly reg: Registrar,
    private readonly bits: number,
  ) {}

  async start(): Promise<void> {
    for (const e of await this.reg.recover()) {
      this.tally['key-lost']++;
      process.stderr.write(`powprime: KEY LOST for ${e.prime}: the registry holds it but the last run stopped before its key was stored\n`);
    }
    this.minBits = (await this.reg.client.requirements(this.bits)).bits;
  }

  /** Folds the keystore's journal into its snapshot as the command ends. */
  close(): void {
    this.reg.keystore.close();
  }

  /** Registers one prime (or learns it is known); returns its ledger state. */
  async register(prime: bigint): Promise<string> {
    if (this.minBits !== null && this.bits < this.minBits) {
      this.tally['below-requirements']++;
      return 'below-requirements';
    }
    const before = this.reg.keystore.get(prime)?.state;
    const e = await this.reg.register(prime);
    if (before === e.state) return e.state; // known from an earlier run: counted then
    this.tally[e.state === 'sending' ? 'rejected' : e.state]++;
    // The ident and message are the registry's text: escaped for the terminal.
    if (e.state === 'rejected') process.stderr.write(`powprime: ${prime} rejected (${terminalLine(`${e.ident}${e.message ? `: ${e.message}` : ''}`)})\n`);
    return e.state;
  }
}

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
    .requiredOption('--bits <B>', `bit length (${MIN_BITS}-${MAX_BITS})`)
    .requiredOption('--count <C>', 'how many primes (with --out: in the file, counting earlier runs)')
    .option('--seed <S>', 'search seed, decimal or 0x (default: taken from --out, else random and reported)')
    .option('--threads <n>', 'worker threads (default: one per core)')
    .option('--backend <name>', 'auto, native or js', 'auto')
    .option('--out <file.jsonl>', 'append one JSON line per prime; rerunning resumes where the file ends')
    .option('--json', 'with --out: print a JSON summary')
    .option('--hex', 'print each prime as 0x hex on stdout (an --out file keeps decimal, for resume and merge)')
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
    .action(async (opts: SearchOpts) => {
      const bits = parseIntArg('--bits', opts.bits, MIN_BITS, MAX_BITS);
      const count = parseIntArg('--count', opts.count, 1, Number.MAX_SAFE_INTEGER);
      const threads = opts.threads === undefined ? undefined : parseIntArg('--threads', opts.threads, 1, 256);
      const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
      let seed = opts.seed === undefined ? undefined : parseSeed('--seed', opts.seed);
      const shard = opts.shard === undefined ? null : parseShard(opts.shard, opts.shardCount);
      if (opts.shardCount !== undefined && opts.shard !== 'auto') throw new RangeError('--shard-count goes with --shard auto');
      if (shard && opts.queue) throw new RangeError('--shard and --queue do not go together: a queue already spreads the work');
      const target = opts.queue ? parseQueueTarget(opts.queue, opts.queueName) : null;
      if (opts.chunkLength !== undefined && !target) throw new RangeError('--chunk-length goes with --queue');
      if (opts.registerRate !== undefined && !(target && opts.register)) throw new RangeError('--register-rate goes with --queue and --register');
      const registerRate = opts.registerRate === undefined ? null : parseRate('--register-rate', opts.registerRate);
      const chunkLength = opts.chunkLength === undefined ? undefined : BigInt(parseIntArg('--chunk-length', opts.chunkLength, 1, 2 ** 40));
      // This process runs indexes base, base+stride, …: all of them, or one shard's.
      const base = shard?.k ?? 0;
      const stride = shard?.n ?? 1;
      const wanted = shard ? shardSize(shard, count) : count;

      // Resume: the file's lines fix the seed and the next index. The file is
      // locked first: another run appending to it (or registering its primes)
      // must not be read half-way, nor raced.
      const outFile = opts.out !== undefined ? JsonlOut.open(opts.out, readExisting) : null;
      const existing = outFile?.existing ?? { lines: [], lineNos: [], validBytes: 0, totalBytes: 0 };
      if (existing.lines.length) {
        const where = (i: number): string => `--out file ${opts.out} line ${existing.lineNos[i]}`;
        const refuse = ' (refusing to resume from it)';
        const first = existing.lines[0]!;
        try {
          checkLineFields({ line: first, where: where(0) });
        } catch (err) {
          throw new RangeError(`${(err as Error).message}${refuse}`);
        }
        const fileSeed = BigInt(first.seed);
        if (first.bits !== bits) throw new RangeError(`--out file holds ${first.bits}-bit primes, not ${bits}-bit; use another file`);
        if (seed !== undefined && seed !== fileSeed) throw new RangeError(`--out file was written with seed ${fileSeed}, not ${seed}; use another file`);
        seed = fileSeed;
        existing.lines.forEach((l, i) => {
          if (l.bits !== bits || l.seed !== first.seed || l.index !== base + i * stride) {
            throw new RangeError(
              `${where(i)} does not continue this ${shard ? `shard's ` : ''}run (bits ${l.bits}, seed ${JSON.stringify(l.seed)}, index ${l.index}; expected index ${base + i * stride})`,
            );
          }
        });
        // Every prime it continues from (and may register) is checked: of its bit length, and safe.
        await verifyLines(existing.lines.map((line, i) => ({ line, where: where(i) })), refuse);
      }
      if (shard && seed === undefined) throw new RangeError('--shard needs --seed: every shard must search the same run');
      seed ??= randomSeed();
      const startIndex = base + existing.lines.length * stride;
      const remaining = wanted - existing.lines.length;
      // The lines about the run (seed, resume, shard) are for a person at a terminal, and not under --quiet.
      const tty = Boolean(process.stderr.isTTY) && !isQuiet();
      if (opts.out && tty && existing.lines.length) {
        process.stderr.write(`resuming ${opts.out}: ${existing.lines.length} of ${wanted} done, seed ${seed}\n`);
      } else if (opts.seed === undefined && !existing.lines.length && tty) {
        process.stderr.write(`seed ${seed}\n`);
      }
      if (shard && tty) process.stderr.write(`shard ${shard.k + 1} of ${shard.n} (${shard.source}): ${wanted} of the ${count} indexes\n`);
      const registering = opts.register ? new Registering(makeRegistrar(opts), bits) : null;
      if (registering) {
        await registering.start();
        // Primes found by earlier runs and not yet registered (a crash between the two steps).
        for (const l of existing.lines) await registering.register(BigInt(l.prime));
      }
      if (remaining <= 0) {
        outFile?.close();
        registering?.close();
        summary(opts, { found: 0, total: existing.lines.length, seed }, registering);
        return;
      }

      const out = outFile;
      // SIGINT, SIGTERM and SIGHUP abort it; a second one leaves at once (e.g. while Redis does not answer).
      const controller = { signal: interruptSignal };
      const started = performance.now();
      const bar =
        progressMode() === 'bar'
          ? new SingleBar({
              format: target ? 'safe primes {bar} {value}/{total} | {queueText} | {rate} | {etaText}' : 'safe primes {bar} {value}/{total} | {rate} | {etaText}',
              hideCursor: true,
              stream: process.stderr,
            })
          : null;
      // Queue mode with no live worker: nothing runs until one is started, so the bar says how.
      const startHint = target ? `start one: powprime worker --queue ${opts.queue}${opts.queueName !== DEFAULT_QUEUE_NAME ? ` --queue-name ${opts.queueName}` : ''}` : '';
      // The bar's tokens live here, so a notice line (which restarts the bar beneath it) loses none of them.
      const tokens = { rate: '-', etaText: 'ETA -', queueText: '0 chunks running | 0 workers', held: 0, workers: 0, candidateRate: 0 };
      let found = 0;
      const lastTick = { done: -1, at: 0 };
      const show = (t: Partial<typeof tokens>): void => {
        Object.assign(tokens, t);
        if (target) tokens.queueText = `${plural(tokens.held, 'chunk')} running | ${tokens.workers ? plural(tokens.workers, 'worker') : `0 workers (${startHint})`}`;
        const done = existing.lines.length + found;
        // Known once a prime is in: the time per prime so far times the primes still wanted.
        const perPrimeMs = found ? (performance.now() - started) / found : null;
        const etaMs = perPrimeMs === null ? null : Math.round(perPrimeMs * (wanted - done));
        tokens.etaText = etaMs === null ? 'ETA -' : `ETA ${formatEta(etaMs)}`;
        bar?.update(done, tokens);
        // Queue mode polls five times a second: a JSON tick when a prime is in, else at most one a second.
        const now = performance.now();
        if (done === lastTick.done && now - lastTick.at < 1000) return;
        Object.assign(lastTick, { done, at: now });
        progressEvent({
          done,
          total: wanted,
          rate: perPrimeMs === null ? null : 1000 / perPrimeMs,
          etaMs,
          ...(target ? { chunksRunning: tokens.held, workers: tokens.workers, candidatesPerSecond: Math.round(tokens.candidateRate) } : {}),
        });
      };
      const notice = (message: string): void => {
        bar?.stop();
        process.stderr.write(`powprime: ${message}\n`);
        bar?.start(wanted, existing.lines.length + found, tokens);
      };
      bar?.start(wanted, existing.lines.length, tokens);
      let registrations: RegistrationQueue | null = null;
      const emit = async (r: Found): Promise<void> => {
        const line: SearchLine = { prime: r.prime.toString(), bits, seed: seed.toString(), index: Number(r.index), elapsedMs: Math.round(r.elapsedMs) };
        if (out) out.append(line);
        else process.stdout.write(`${JSON.stringify(opts.hex ? { ...line, prime: `0x${r.prime.toString(16)}` } : line)}\n`);
        found++;
        if (registrations) await registrations.submit({ prime: r.prime.toString(), bits, seed: seed.toString(), index: r.index.toString() });
        else await registering?.register(r.prime);
        const perPrime = (performance.now() - started) / found / 1000;
        show({ rate: `${perPrime.toFixed(2)} s/prime` });
      };
      try {
        if (target) {
          // Primes are registered through a queue of their own: one registration at a time across every process on it.
          if (registering) {
            registrations = await (await import('../queue/registration.ts')).RegistrationQueue.open({
              target,
              register: (p) => registering.register(p),
              ...(registerRate ? { rate: registerRate } : {}),
              onNotice: notice,
            });
          }
          const { coordinate } = await import('../queue/coordinator.ts');
          await coordinate({
            target,
            bits,
            seed,
            startIndex: BigInt(startIndex),
            stride: BigInt(stride),
            count: BigInt(remaining),
            ...(chunkLength !== undefined ? { chunkLength } : {}),
            signal: controller.signal,
            onPrime: emit,
            onNotice: notice,
            onProgress: (p) => show({ held: p.held, workers: p.workers.length, candidateRate: p.rate, ...(found ? {} : { rate: `${formatRate(p.rate)} candidates` }) }),
          });
          await registrations?.drain(controller.signal);
        } else {
          for await (const r of searchSafePrimes({
            bits,
            count: remaining,
            seed,
            startIndex,
            stride,
            backend,
            signal: controller.signal,
            ...(threads !== undefined ? { threads } : {}),
          })) {
            await emit(r);
          }
        }
      } catch (err) {
        if (!controller.signal.aborted) throw err;
        bar?.stop();
        const { signal } = controller.signal.reason as InterruptedError;
        throw new InterruptedError(signal, `${plural(found, 'new prime')} kept; ${opts.out ? 'rerun the same command to resume' : 'rerun with --seed and --out to make a run resumable'}`);
      } finally {
        bar?.stop();
        out?.close();
        await registrations?.close();
        registering?.close();
      }
      summary(opts, { found, total: existing.lines.length + found, seed }, registering);
    });
}

/** `n/seconds`, e.g. 10/60. */
function parseRate(name: string, text: string): { max: number; ms: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new RangeError(`${name} must be n/seconds with both at least 1, e.g. 10/60 (got ${JSON.stringify(text)})`);
  return { max: Number(m[1]), ms: Number(m[2]) * 1000 };
}

function summary(opts: SearchOpts, s: { found: number; total: number; seed: bigint }, reg: Registering | null): void {
  const tally = reg ? Object.entries(reg.tally).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ') || 'nothing new' : null;
  if (!opts.out) {
    if (tally) process.stderr.write(`registry: ${tally}\n`);
    return;
  }
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ out: opts.out, found: s.found, total: s.total, seed: s.seed.toString(), ...(reg ? { registry: reg.tally } : {}) })}\n`);
  } else {
    process.stdout.write(`${plural(s.found, 'new safe prime')}; ${s.total} in ${opts.out} (seed ${s.seed})${tally ? `; registry: ${tally}` : ''}\n`);
  }
}

/** Milliseconds as the bar shows them: 45s, 12m03s, 3h20m. */
function formatEta(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
