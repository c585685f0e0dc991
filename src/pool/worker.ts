/** Runs one task in a pool thread. Native calls here are synchronous and bounded. */
import { claimLoop, type ClaimTask } from '../pow/claim.ts';
import { runCheck, type CheckTask } from '../prime/check.ts';
import { searchIndex, type IndexTask } from '../prime/index-search.ts';

export type Task = ClaimTask | IndexTask | CheckTask;

export default function run(task: Task): unknown {
  switch (task.kind) {
    case 'pow':
      return claimLoop(task);
    case 'safe-prime':
      return searchIndex(task);
    case 'check':
      return runCheck(task);
  }
}
