/**
 * A list command whose list came back empty found nothing: exit 1, with one
 * line saying what was empty (on stderr, kept under --quiet as the reason for
 * the exit code), as `question answers` does for ids without an answer.
 * Under --json the command still prints the empty list or object first, so
 * stdout stays valid JSON.
 */
export function foundNothing(what: string): void {
  process.exitCode = 1;
  process.stderr.write(`powprime: ${what}\n`);
}
