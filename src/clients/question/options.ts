/** What a QuestionClient is configured with beside every client's options, and the checks of them. */
import { POW_BACKEND_CHOICES, type PowBackendChoice } from '../../backend.ts';
import { checkRequiredOptions, optionNames } from '../../option-checks.ts';
import { argumentError, checkOneOf, checkThreads, show } from '../../validate.ts';
import { optionalNumber, type ClientOptionNames, type ServiceClientOptions } from '../http/client-options.ts';

export interface QuestionClientOptions extends ServiceClientOptions {
  /** The service's homepage, credited with every delivery (default: the base URL's origin). */
  homepageUrl?: string;
  /** Keep downloaded files this long at most (default 30 days, or less when the route says so). */
  fileMaxAgeMs?: number;
  /** Proof-of-work settings for query(). */
  pow?: QuestionPowOptions;
}

/** solvePow's settings that a QuestionClient takes for query(). */
export interface QuestionPowOptions {
  threads?: number;
  backend?: PowBackendChoice;
}

/** QuestionClient's options beside every client's: any other key is refused. */
export const QUESTION_CLIENT_OPTIONS: ClientOptionNames = {
  client: 'QuestionClient',
  own: optionNames<Omit<QuestionClientOptions, keyof ServiceClientOptions>>()(['homepageUrl', 'fileMaxAgeMs', 'pow']),
};
export const QUESTION_POW_OPTIONS = optionNames<QuestionPowOptions>()(['threads', 'backend']);

/** QuestionClient's own options checked at construction (the pow settings here, not by the first query() after a wait for its slot). */
export function checkQuestionOptions(opts: QuestionClientOptions): void {
  if (opts.homepageUrl !== undefined && (typeof opts.homepageUrl !== 'string' || !URL.canParse(opts.homepageUrl))) {
    throw argumentError(TypeError, 'homepageUrl', `must be an absolute URL (got ${show(opts.homepageUrl)})`);
  }
  optionalNumber(opts, 'fileMaxAgeMs', (n) => n >= 0, 'a number of milliseconds ≥ 0');
  if (opts.pow !== undefined) {
    checkRequiredOptions('pow', opts.pow, 'QuestionClient', QUESTION_POW_OPTIONS, 'must be {threads?, backend?}');
    if (opts.pow.threads !== undefined) checkThreads('pow.threads', opts.pow.threads);
    if (opts.pow.backend !== undefined) checkOneOf('pow.backend', opts.pow.backend, POW_BACKEND_CHOICES);
  }
}
