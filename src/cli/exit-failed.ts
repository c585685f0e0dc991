/**
 * Exit 1 (failed, or found nothing) without throwing, for a command that has
 * already printed its result: a list that came back empty (as `question
 * answers` does for ids without an answer), parameters that fail a check.
 * One line on stderr says why (kept under --quiet as the reason for the exit
 * code); under --json stdout already holds the empty list or object, so it
 * stays valid JSON.
 */
export function exitFailed(why: string): void {
  process.exitCode = 1;
  process.stderr.write(`powprime: ${why}\n`);
}
