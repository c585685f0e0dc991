/** Runs one task in a pool thread. Native calls here are synchronous and bounded. */
import { claimLoop, type ClaimTask } from '../pow/claim.ts';

export type Task = ClaimTask;

export default function run(task: Task): void {
  switch (task.kind) {
    case 'pow':
      return claimLoop(task);
  }
}
