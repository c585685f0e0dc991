// One stop signal, in-process (its own file: the interrupt state is the
// process's): what search and moduli end with when it catches them checking
// their --out file on resume, and the same signal delivered twice at once
// (coreutils timeout signals the process, then its group) taken as one stop.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { InterruptedError } from '../src/errors.ts';
import { installInterruptHandlers, interruptSignal, stopsCleanly } from '../src/cli/interrupt.ts';
import { interruptedKeeping, keepingNothing } from '../src/cli/interrupted-run.ts';

afterAll(() => vi.restoreAllMocks());

describe('an interrupted run', () => {
  it('checking its --out on resume says nothing new was kept and how to go on; a repeat of the signal at once is the same stop', async () => {
    // A second stop would leave the process: here that throws, and fails the test.
    vi.spyOn(process, 'exit').mockImplementation(() => {
      throw new Error('left the process');
    });
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    installInterruptHandlers();
    await stopsCleanly(async () => {
      // Before any signal, a failure is passed on as it was.
      const other = new RangeError('not this run');
      await expect(keepingNothing(Promise.reject(other), 'new moduli', 'moduli')).rejects.toBe(other);
      process.emit('SIGTERM');
      expect(interruptSignal.aborted).toBe(true);
      // What the resume check rejects with: the signal's bare reason.
      const resuming = Promise.reject(interruptSignal.reason as Error);
      const err = await keepingNothing(resuming, 'new moduli', 'moduli').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InterruptedError);
      expect((err as InterruptedError).message).toBe('interrupted (SIGTERM): 0 new moduli kept; rerun the same command to resume');
      expect(interruptedKeeping('3 new primes', undefined).message).toBe('interrupted (SIGTERM): 3 new primes kept; rerun with --seed and --out to make a run resumable');
      // Moduli's stdout carries the header: saved to a file, that file resumes the run.
      expect(interruptedKeeping('2 new moduli', undefined, true).message).toBe('interrupted (SIGTERM): 2 new moduli kept; to resume, rerun it with --out naming the file stdout went to');
      // timeout(1)'s second delivery, a moment after the first: not a second stop.
      process.emit('SIGTERM');
    });
    expect(process.exit).not.toHaveBeenCalled();
  });
});
