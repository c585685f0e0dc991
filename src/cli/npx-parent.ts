/**
 * `npx powprime …` (npm exec) starts the command through a shell (`sh -c`),
 * and SIGTERM to npx (what a service manager or a scheduler sends) ends npx,
 * which passes it to the shell, not to the command: powprime would run on as
 * an orphan, still listening or searching. So a process npm exec started
 * watches its parent, and its going away (the parent pid changes: the orphan
 * was taken in by another) stops the command as SIGTERM would. Only under
 * npm exec: a process left running on purpose (nohup, `&` in a shell that
 * exits) must keep running. Not on Windows, where an orphan keeps its
 * parent's pid.
 */

/** How often a process started by npx looks whether npx is still there. */
const PARENT_CHECK_MS = 1000;

/** Calls `stop` once, when npx is gone (see above). */
export function stopWhenNpxGoes(stop: () => void): void {
  if (process.env.npm_command !== 'exec' || process.platform === 'win32') return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, PARENT_CHECK_MS);
  timer.unref();
}
