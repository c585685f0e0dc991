import { Option, type Command } from 'commander';
import { solvePow, type SolveOptions } from '../pow/solve.ts';
import { POW_BACKEND_CHOICES, type PowBackendChoice } from '../backend.ts';
import { checkOneOf } from '../validate.ts';
import { interruptSignal } from './interrupt.ts';
import { formatRate, parseBigArg, parseIntArg } from './args.ts';
import { isQuiet } from './progress-mode.ts';
import { StatusLine } from './status.ts';

export function registerSolve(program: Command): void {
  program
    .command('solve')
    .description('find the digit string S whose SHA-256(nonce‖S) starts with <difficulty> hex zeros')
    .argument('<nonce>', 'the challenge nonce')
    .argument('<difficulty>', 'leading 0 hex characters required (0-64)')
    .option('--threads <n>', 'worker threads (default: one per core)')
    // A list of its own (the PoW search alone has a wasm backend), so it is given as the option's choices.
    .addOption(new Option('--backend <name>', 'native (the addon), wasm (WebAssembly SIMD) or js (TypeScript); auto: the first that loads').choices(POW_BACKEND_CHOICES).default('auto'))
    .option('--max-attempts <n>', 'give up after this many candidates')
    .option('--json', 'print {"solution","counter","attempts","elapsedMs","backend"}')
    .addHelpText('after', '\nExamples:\n  powprime solve powprime-example 6\n  powprime solve "$NONCE" 7 --json --max-attempts 1e9   # exit 1 when none is found within 10^9 candidates')
    .action(async (nonce: string, difficultyText: string, opts: { threads?: string; backend: string; maxAttempts?: string; json?: boolean }) => {
      // Bytes that are not UTF-8 reach us as U+FFFD: the answer would be for other bytes than the shell held.
      if (nonce.includes('\uFFFD')) throw new RangeError('nonce is not UTF-8 text (or holds U+FFFD, which such bytes decode to): give the nonce as UTF-8');
      // Converted only: solvePow judges them, and its errors name the flags (args.ts).
      const difficulty = parseIntArg('difficulty', difficultyText);
      const threads = opts.threads === undefined ? undefined : parseIntArg('--threads', opts.threads);
      const backend = checkOneOf<PowBackendChoice>('--backend', opts.backend, POW_BACKEND_CHOICES);
      const maxAttempts = opts.maxAttempts === undefined ? undefined : parseBigArg('--max-attempts', opts.maxAttempts);
      const status = new StatusLine();
      // A difficulty no machine finishes is said up front, once, with what bounds it (not only as a far ETA).
      const unbounded = maxAttempts === undefined && difficulty >= HOPELESS_DIFFICULTY;
      let warned = false;
      const warn = (hashRate: number): void => {
        if (warned || !unbounded || !(hashRate > 0) || isQuiet()) return;
        warned = true;
        status.clear();
        process.stderr.write(
          `powprime: difficulty ${difficulty} expects about ${formatCount(16 ** difficulty)} candidates: about ${formatDuration(16 ** difficulty / hashRate)} at this machine's ${formatRate(hashRate)}; --max-attempts N bounds the search\n`,
        );
      };
      try {
        const r = await solvePow(
          { nonce, difficulty },
          {
            ...(threads !== undefined ? { threads } : {}),
            ...(maxAttempts !== undefined ? { maxAttempts } : {}),
            // A no-op cast once solvePow takes PowBackendChoice (it does since the wasm backend).
            backend: backend as SolveOptions['backend'],
            signal: interruptSignal,
            onProgress: (p) => {
              warn(p.hashRate);
              status.update(progressText(p.attempts, p.hashRate, difficulty), progressFields(p.attempts, p.hashRate, difficulty));
            },
          },
        );
        status.clear();
        if (opts.json) {
          process.stdout.write(`${JSON.stringify({ solution: r.solution, counter: r.counter.toString(), attempts: r.attempts, elapsedMs: Math.round(r.elapsedMs), backend: r.backend })}\n`);
        } else {
          process.stdout.write(`${r.solution}\n`);
        }
      } finally {
        status.clear();
      }
    });
}

/**
 * Each candidate meets difficulty d with probability 16^-d, so 16^d candidates
 * are expected; the ETA is for that expectation (the real count is geometric:
 * about a third of runs need more than that).
 */
function progressText(attempts: number, hashRate: number, difficulty: number): string {
  const expected = 16 ** difficulty;
  const left = Math.max(expected - attempts, 0);
  const eta = hashRate > 0 ? (attempts < expected ? `ETA ~${formatDuration(left / hashRate)}` : 'past the expected work') : '';
  return `searching: ${formatCount(attempts)} of ~${formatCount(expected)} expected candidates, ${formatRate(hashRate)}${eta ? `, ${eta}` : ''}`;
}

/** The same tick for --progress=json: candidates tried, expected, per second, and the time to the expectation. */
function progressFields(attempts: number, hashRate: number, difficulty: number): Record<string, number | null> {
  const expected = 16 ** difficulty;
  return { done: attempts, total: expected, rate: Math.round(hashRate), etaMs: hashRate > 0 ? Math.round((Math.max(expected - attempts, 0) / hashRate) * 1000) : null };
}

/** Difficulties whose expected work (16^d, 2.8·10^14 candidates at 12) takes days or more on any machine. */
const HOPELESS_DIFFICULTY = 12;

/** 950, 12.3 k, 4.5 G, 2.8 T, then powers of ten (1.2×10^24): never a run of digits. */
function formatCount(n: number): string {
  if (n >= 1e15) {
    const e = Math.floor(Math.log10(n));
    return `${(n / 10 ** e).toFixed(1)}×10^${e}`;
  }
  if (n >= 1e12) return `${(n / 1e12).toFixed(1)} T`;
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return String(n);
}

/** 45 s, 12 min, 3.2 h, 17 days, 40 years, 3.1×10^8 years. */
function formatDuration(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172800) return `${(seconds / 3600).toFixed(1)} h`;
  if (seconds < 2 * 365.25 * 86400) return `${Math.round(seconds / 86400)} days`;
  const years = seconds / (365.25 * 86400);
  if (years < 1e4) return `${Math.round(years)} years`;
  const e = Math.floor(Math.log10(years));
  return `${(years / 10 ** e).toFixed(1)}×10^${e} years`;
}
