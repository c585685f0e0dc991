/**
 * What an interrupted `search` or `moduli` run ends with, wherever the
 * signal caught it (checking the --out file on resume, or searching): its
 * signal's InterruptedError, saying what the run kept and how to go on.
 */
import { InterruptedError } from '../errors.ts';
import { interruptSignal } from './interrupt.ts';

/**
 * `stdoutResumes`: the run's stdout carries the header --out resumes from
 * (moduli's does) and went to a regular file, so that file resumes the run.
 */
export function interruptedKeeping(kept: string, out: string | undefined, stdoutResumes = false): InterruptedError {
  const { signal } = interruptSignal.reason as InterruptedError;
  const next = out ? 'rerun the same command to resume' : stdoutResumes ? 'to resume, rerun it with --out naming the file stdout went to' : 'rerun with --seed and --out to make a run resumable';
  return new InterruptedError(signal, `${kept} kept; ${next}`);
}

/** `run`, whose interruption says nothing new was kept. */
export async function keepingNothing<T>(run: Promise<T>, noun: string, out: string | undefined): Promise<T> {
  try {
    return await run;
  } catch (err) {
    throw interruptSignal.aborted ? interruptedKeeping(`0 ${noun}`, out) : err;
  }
}
