/**
 * The pool threads' entry point: runs one task of pow/ or prime/ (the pool
 * itself knows no tasks). Native calls here are synchronous and bounded.
 */
import { runPowTask, type PowTask } from './pow/task.ts';
import { runCheck, type CheckTask } from './prime/check.ts';
import { runFermatBatch, type FermatBatchTask } from './prime/fermat-batch.ts';
import { searchIndex, type IndexTask } from './prime/index-search.ts';

export type Task = PowTask | IndexTask | CheckTask | FermatBatchTask;

export default function run(task: Task): unknown {
  switch (task.kind) {
    case 'pow':
      return runPowTask(task);
    case 'safe-prime':
      return searchIndex(task);
    case 'check':
      return runCheck(task);
    case 'fermat2':
      return runFermatBatch(task);
  }
}
