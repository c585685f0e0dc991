/**
 * commander's usage errors in the CLI's one-line form: a misspelled flag is
 * named before any complaint about a required one (commander checks required
 * options first, so `search --bit 512` used to say only that --bits is
 * missing), and its "Did you mean" comes on the same line.
 */
import type { Command, Option } from 'commander';

/** `unknown option '--bit'\n(Did you mean --bits?)` → one line. */
export function oneLineUsageError(message: string): string {
  const line = message.replace(/^error: /, '').replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)');
  // Other tools' spellings of the version flag, which commander cannot guess from ours.
  return line.replace(/^(unknown option '-v'|unknown command 'version')$/m, '$1 (did you mean -V, --version?)');
}

/**
 * Moves every required option's check from commander's parse, which runs
 * before the unknown-option check, to a preAction hook, which runs after it:
 * the same message, the same exit, but only once every flag is known.
 */
export function checkRequiredAfterUnknown(program: Command): void {
  const required = new Map<Command, Option[]>();
  const walk = (c: Command): void => {
    const own = c.options.filter((o) => o.mandatory);
    for (const o of own) o.mandatory = false;
    if (own.length) required.set(c, own);
    c.commands.forEach(walk);
  };
  walk(program);
  program.hook('preAction', (_root, action) => {
    for (const o of required.get(action) ?? []) {
      if (action.getOptionValue(o.attributeName()) === undefined) action.error(`error: required option '${o.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
    }
  });
}
