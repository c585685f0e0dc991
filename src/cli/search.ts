import type { Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { MAX_BITS, MIN_BITS, parseSeed, randomSeed, searchSafePrimes } from '../prime/search.ts';
import { checkOneOf } from '../validate.ts';
import { InterruptedError } from '../errors.ts';
import { parseIntArg } from './args.ts';
import { JsonlAppender, readExisting, type SearchLine } from './jsonl-file.ts';
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
  register?: boolean;
  baseUrl?: string;
  stateDir?: string;
  keystore?: string;
  maxWait?: string;
  limits?: boolean;
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

  async register(prime: bigint): Promise<void> {
    if (this.minBits !== null && this.bits < this.minBits) {
      this.tally['below-requirements']++;
      return;
    }
    const before = this.reg.keystore.get(prime)?.state;
    const e = await this.reg.register(prime);
    if (before === e.state) return; // known from an earlier run: counted then
    this.tally[e.state === 'sending' ? 'rejected' : e.state]++;
    if (e.state === 'rejected') process.stderr.write(`powprime: ${prime} rejected (${e.ident}${e.message ? `: ${e.message}` : ''})\n`);
  }
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
    .option('--register', 'register each prime with the prime registry and keep its keys')
    .option('--base-url <url>', 'with --register: registry address (or POWPRIME_REGISTRY_URL)')
    .option('--state-dir <dir>', 'with --register: registry client state')
    .option(KEYSTORE_OPTION[0], `with --register: ${KEYSTORE_OPTION[1]}`)
    .option('--max-wait <seconds>', 'with --register: fail instead of waiting longer for a rate limit or a ban')
    .option('--no-limits', 'with --register: skip client-side rate limits (only for a local server)')
    .action(async (opts: SearchOpts) => {
      const bits = parseIntArg('--bits', opts.bits, MIN_BITS, MAX_BITS);
      const count = parseIntArg('--count', opts.count, 1, Number.MAX_SAFE_INTEGER);
      const threads = opts.threads === undefined ? undefined : parseIntArg('--threads', opts.threads, 1, 256);
      const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
      let seed = opts.seed === undefined ? undefined : parseSeed('--seed', opts.seed);

      // Resume: the file's lines fix the seed and the next index.
      const existing = opts.out ? readExisting(opts.out) : { lines: [], validBytes: 0, totalBytes: 0 };
      let startIndex = 0;
      if (existing.lines.length) {
        const first = existing.lines[0]!;
        const fileSeed = BigInt(first.seed);
        if (first.bits !== bits) throw new RangeError(`--out file holds ${first.bits}-bit primes, not ${bits}-bit; use another file`);
        if (seed !== undefined && seed !== fileSeed) throw new RangeError(`--out file was written with seed ${fileSeed}, not ${seed}; use another file`);
        seed = fileSeed;
        existing.lines.forEach((l, i) => {
          if (l.bits !== bits || l.seed !== first.seed || l.index !== first.index + i) {
            throw new RangeError(`--out file line ${i + 1} does not continue the run (bits ${l.bits}, seed ${l.seed}, index ${l.index})`);
          }
        });
        startIndex = first.index + existing.lines.length;
      }
      seed ??= randomSeed();
      const remaining = count - existing.lines.length;
      const tty = Boolean(process.stderr.isTTY);
      if (opts.out && tty && existing.lines.length) {
        process.stderr.write(`resuming ${opts.out}: ${existing.lines.length} of ${count} done, seed ${seed}\n`);
      } else if (opts.seed === undefined && !existing.lines.length && tty) {
        process.stderr.write(`seed ${seed}\n`);
      }
      const registering = opts.register ? new Registering(makeRegistrar(opts), bits) : null;
      if (registering) {
        await registering.start();
        // Primes found by earlier runs and not yet registered (a crash between the two steps).
        for (const l of existing.lines) await registering.register(BigInt(l.prime));
      }
      if (remaining <= 0) {
        summary(opts, { found: 0, total: existing.lines.length, seed }, registering);
        return;
      }

      const out = opts.out ? new JsonlAppender(opts.out, existing) : null;
      const controller = new AbortController();
      const onSigint = (): void => controller.abort(new InterruptedError());
      process.once('SIGINT', onSigint);
      const bar = tty
        ? new SingleBar({
            format: 'safe primes {bar} {value}/{total} | {rate} | ETA {eta_formatted}',
            hideCursor: true,
            stream: process.stderr,
            etaBuffer: 20,
          })
        : null;
      bar?.start(count, existing.lines.length, { rate: '-' });
      const started = performance.now();
      let found = 0;
      try {
        for await (const r of searchSafePrimes({
          bits,
          count: remaining,
          seed,
          startIndex,
          backend,
          signal: controller.signal,
          ...(threads !== undefined ? { threads } : {}),
        })) {
          const line: SearchLine = { prime: r.prime.toString(), bits, seed: seed.toString(), index: Number(r.index), elapsedMs: Math.round(r.elapsedMs) };
          if (out) out.append(line);
          else process.stdout.write(`${JSON.stringify(line)}\n`);
          found++;
          await registering?.register(r.prime);
          const perPrime = (performance.now() - started) / found / 1000;
          bar?.update(existing.lines.length + found, { rate: `${perPrime.toFixed(2)} s/prime` });
        }
      } catch (err) {
        if (!controller.signal.aborted) throw err;
        bar?.stop();
        process.stderr.write(`powprime: interrupted after ${found} new primes; ${opts.out ? 'rerun the same command to resume' : 'rerun with --seed and --out to make a run resumable'}\n`);
        process.exitCode = 130;
        return;
      } finally {
        bar?.stop();
        out?.close();
        process.off('SIGINT', onSigint);
      }
      summary(opts, { found, total: existing.lines.length + found, seed }, registering);
    });
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
    process.stdout.write(`${s.found} new safe primes; ${s.total} in ${opts.out} (seed ${s.seed})${tally ? `; registry: ${tally}` : ''}\n`);
  }
}
