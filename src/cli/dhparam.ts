import type { Command } from 'commander';
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { DH_MAX_BITS, DH_MIN_BITS } from '../limits.ts';
import { generateDhParams } from '../prime/dhparam.ts';
import { parseSeed, randomSeed } from '../prime/seed.ts';
import { checkOneOf } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { dhparamFromFile, refuseDerOnTerminal } from './dhparam-in.ts';
import { interruptSignal } from './interrupt.ts';
import { replaceablePath } from './out-path.ts';
import { isQuiet } from './progress-mode.ts';
import { StatusLine } from './status.ts';

interface DhparamOpts {
  in?: string;
  inform?: string;
  check?: boolean;
  text?: boolean;
  noout?: boolean;
  out?: string;
  seed?: string;
  threads?: string;
  backend: string;
  outform: string;
  json?: boolean;
}

/** openssl's default size for `openssl dhparam` with no size given. */
const DEFAULT_BITS = '2048';

export function registerDhparam(program: Command): void {
  program
    .command('dhparam')
    .description('Diffie-Hellman parameters (PKCS#3 PEM or DER, g = 2, p a safe prime ≡ 23 mod 24), like `openssl dhparam BITS`')
    .argument('[bits]', `size of p in bits, ${DH_MIN_BITS} to ${DH_MAX_BITS} (default ${DEFAULT_BITS}, openssl's)`)
    .option('--out <file>', 'write the parameters here (whole or not at all) instead of stdout')
    .option('--in <file>', 'read existing parameters (PEM or DER) instead of making them: to --check, print as --text, or convert with --outform')
    .option('--inform <form>', 'with --in: PEM or DER (default: what the file holds)')
    .option('--check', 'with --in: check them as `openssl dhparam -check` does (exit 1 when not valid)')
    .option('--text', 'with --in: print p and g as `openssl dhparam -text` does, before the parameters')
    .option('--noout', 'with --in: print no parameters (with --check or --text)')
    .option('--outform <form>', 'PEM or DER (binary, as `openssl dhparam -outform DER`)', 'PEM')
    .option('--seed <S>', 'search seed, decimal or 0x: the same seed gives the same parameters (default: random, reported)')
    .option('--threads <n>', 'worker threads (default: one per core)')
    .option('--backend <name>', 'auto, native or js', 'auto')
    .option('--json', 'print {"bits","seed","elapsedMs","out"} (with --out) or the parameters inside {"pem",…} (DER: {"der"} in base64)')
    .addHelpText(
      'after',
      '\nExamples:\n  powprime dhparam --out dhparam.pem          # 2048 bits\n  powprime dhparam 3072 --seed 7 > dh3072.pem  # the same seed, the same file\n' +
        '  powprime dhparam --outform DER --out dh.der\n  powprime dhparam --in dh.pem --check --text --noout   # as openssl dhparam -in dh.pem -check -text -noout\n\n' +
        "OpenSSL's spellings (-out, -outform, -in, -inform, -check, -text, -noout, -2) are taken too.\nThe seed and the file are reported on stderr (with --json, in the JSON).",
    )
    .action(async (bitsText: string | undefined, opts: DhparamOpts) => {
      if (opts.in !== undefined) {
        // Read, not made: what would make them has no say.
        const making = { '[bits]': bitsText, '--seed': opts.seed, '--threads': opts.threads, '--backend': opts.backend === 'auto' ? undefined : opts.backend };
        for (const [flag, value] of Object.entries(making)) if (value !== undefined) throw new RangeError(`${flag} does not go with --in: the parameters are read, not made`);
        checkOutform(opts.outform);
        return dhparamFromFile({ ...opts, in: opts.in });
      }
      for (const flag of ['inform', 'check', 'text', 'noout'] as const) if (opts[flag] !== undefined) throw new RangeError(`--${flag} goes with --in (parameters read from a file)`);
      // Converted only: generateDhParams judges them, and its errors name the flags (args.ts).
      const bits = parseIntArg('bits', bitsText ?? DEFAULT_BITS);
      const threads = opts.threads === undefined ? undefined : parseIntArg('--threads', opts.threads);
      const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
      checkOutform(opts.outform);
      const der = opts.outform.toUpperCase() === 'DER';
      refuseDerOnTerminal(der, opts.out === undefined && !opts.json);
      const seed = opts.seed === undefined ? randomSeed() : parseSeed('--seed', opts.seed);
      // Refuse an unusable --out before minutes of work, not after.
      const target = opts.out === undefined ? undefined : replaceablePath(opts.out);
      const status = new StatusLine();
      try {
        const r = await generateDhParams({
          bits,
          seed,
          backend,
          signal: interruptSignal,
          ...(threads !== undefined ? { threads } : {}),
          onProgress: (p) => status.update(`dhparam ${bits}: ${p.tested} candidates tested, ${(p.elapsedMs / 1000).toFixed(1)} s`, { tested: p.tested, sieved: p.sieved, elapsedMs: p.elapsedMs }),
        });
        status.clear();
        // DH parameters are public: readable by the servers that load them.
        const body = der ? Buffer.from(r.der) : r.pem;
        if (target !== undefined) writeFileAtomic(target, body, 0o644);
        const facts = { bits, seed: seed.toString(), elapsedMs: Math.round(r.elapsedMs) };
        const inline = der ? { der: Buffer.from(r.der).toString('base64') } : { pem: r.pem };
        if (opts.json) process.stdout.write(`${JSON.stringify(opts.out !== undefined ? { ...facts, out: opts.out } : { ...facts, ...inline })}\n`);
        // Said written only once it is: a full disk under `> file` is main.ts's one line and exit 1, not a success note.
        else if (opts.out === undefined) await stdoutWritten(body);
        // On stderr whether or not it is a terminal: a random seed lost is a file that cannot be made again.
        if (!opts.json && !isQuiet()) {
          const where = opts.out === undefined ? 'to stdout' : `to ${opts.out}`;
          process.stderr.write(
            `${bits}-bit DH parameters (${der ? 'DER' : 'PEM'}) written ${where} in ${(r.elapsedMs / 1000).toFixed(1)} s, seed ${seed} (the same --seed makes the same parameters)\n`,
          );
        }
      } finally {
        status.clear();
      }
    });
}

/** Resolves once `data` is handed to the OS. A failed write never resolves: main.ts's 'error' handler ends the command then. */
function stdoutWritten(data: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    process.stdout.write(data, (err) => {
      if (!err) resolve();
    });
  });
}

function checkOutform(outform: string): void {
  if (!/^(pem|der)$/i.test(outform)) throw new RangeError(`--outform must be PEM or DER (got ${JSON.stringify(outform)})`);
}
