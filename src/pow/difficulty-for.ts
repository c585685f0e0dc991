/**
 * Difficulty in time rather than digits: which difficulty makes a solver of a
 * known rate take about `seconds`, and how widely the time spreads. Each
 * candidate meets a difficulty of b bits with probability p = 2^-b (16^-d for
 * d hex digits), independently, so the attempts to the first success follow
 * a geometric distribution: mean 1/p, and a long tail.
 */
import { argumentError, checkOneOf, show } from '../validate.ts';
import { checkRequiredOptions, optionNames } from '../option-checks.ts';
import { MAX_DIFFICULTY } from '../limits.ts';
import { MAX_DIFFICULTY_BITS } from './challenge.ts';

export interface DifficultyForOptions {
  /** The solve time wanted, in seconds (> 0). */
  seconds: number;
  /** The solver's hashes a second (> 0): `powprime bench` or `solvePow`'s hashRate. */
  rate: number;
  /** 'hex' (default): leading '0' hex characters, the question service's unit; 'bits': leading zero bits. */
  unit?: 'hex' | 'bits';
}

/** Every option of difficultyFor: any other key is refused. */
const DIFFICULTY_FOR_OPTIONS = optionNames<DifficultyForOptions>()(['seconds', 'rate', 'unit']);

export interface DifficultyChoice {
  /** Hex digits or bits, as `unit` says. */
  difficulty: number;
  unit: 'hex' | 'bits';
  /** Mean solve time: 1/p attempts at `rate`. */
  expectedSeconds: number;
  /** Nine solves in ten finish within this: ⌈ln 0.1 / ln(1 − p)⌉ attempts at `rate`, about 2.3 times the mean. */
  p90Seconds: number;
}

function checkPositive(name: string, value: unknown): number {
  if (typeof value !== 'number') throw argumentError(TypeError, name, `must be a number (got ${show(value)})`);
  if (!Number.isFinite(value) || value <= 0) throw argumentError(RangeError, name, `must be a finite number above 0 (got ${show(value)})`);
  return value;
}

/**
 * The difficulty whose mean solve time at `rate` hashes a second is closest
 * to `seconds`, closest as a ratio (|log(mean / seconds)|, the lower
 * difficulty on a tie). The choices lie a factor of 16 (or 2) apart, and the
 * linear distance leans to the easier one: for 100 s between means of 16 s
 * and 256 s it would pick 16 s, 6.25 times too short, over 256 s, 2.56 times
 * too long; a wait is felt as a factor. With the spread: the 90th percentile.
 */
export function difficultyFor(options: DifficultyForOptions): DifficultyChoice {
  const o = checkRequiredOptions('options', options, 'difficultyFor', DIFFICULTY_FOR_OPTIONS, 'must be an object {seconds, rate}');
  const seconds = checkPositive('seconds', o.seconds);
  const rate = checkPositive('rate', o.rate);
  const unit = o.unit === undefined ? 'hex' : checkOneOf('unit', o.unit, ['hex', 'bits'] as const);
  const bitsPerStep = unit === 'hex' ? 4 : 1;
  const steps = unit === 'hex' ? MAX_DIFFICULTY : MAX_DIFFICULTY_BITS;
  // log2 of the attempts wanted; the step nearest it, kept in range.
  const wanted = Math.log2(seconds * rate) / bitsPerStep;
  let nearest = Math.round(wanted);
  // Math.round picks the upper step at exactly .5; a tie goes to the lower one (before the clamp, or -0.5 would give -1).
  if (nearest - wanted === 0.5) nearest -= 1;
  const difficulty = Math.min(steps, Math.max(0, nearest));
  const bits = difficulty * bitsPerStep;
  const p = 2 ** -bits;
  // log1p keeps ln(1 − p) exact for tiny p; one attempt at least (p = 1 at difficulty 0).
  const p90Attempts = p === 1 ? 1 : Math.ceil(Math.log(0.1) / Math.log1p(-p));
  return { difficulty, unit, expectedSeconds: 2 ** bits / rate, p90Seconds: p90Attempts / rate };
}
