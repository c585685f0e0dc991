/**
 * OpenSSL's single-dash spellings, for people whose hands know `openssl
 * dhparam -out dh.pem -2 2048` or `openssl prime -hex`: taken where the
 * meaning is powprime's too, answered with powprime's way where it is not.
 * commander would read `-out` as the short flags -o -u -t, so the words are
 * rewritten before it sees them.
 */

/** Per command: OpenSSL's flag → powprime's, the same meaning; '' drops a flag that asks for what powprime does anyway. */
const SAME: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  dhparam: {
    '-out': '--out',
    '-outform': '--outform',
    '-in': '--in',
    '-inform': '--inform',
    '-check': '--check',
    '-text': '--text',
    '-noout': '--noout',
    // Generator 2 is the only one powprime makes.
    '-2': '',
  },
  check: { '-hex': '--hex' },
};

/** Per command: OpenSSL flags whose meaning powprime does not offer, and what to do instead. */
const ANSWERED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  dhparam: {
    '-5': 'powprime dhparam makes generator 2 only (with p ≡ 23 mod 24, 2 generates the subgroup of prime order); leave -5 out',
    '-dsaparam': 'powprime dhparam makes PKCS#3 safe-prime parameters only; -dsaparam is not offered',
  },
  check: {
    '-checks': 'powprime check sets its own rounds (Baillie–PSW plus Miller–Rabin by size, error below 2^-80); leave -checks out',
    '-generate': 'to generate, as `openssl prime -generate -safe -bits B -hex` does: powprime search --bits B --count 1 --format hex',
    '-bits': 'to generate, as `openssl prime -generate -safe -bits B -hex` does: powprime search --bits B --count 1 --format hex',
    '-safe': 'powprime check says of each number whether it is a safe prime; for scripts: --status --safe',
  },
};

/**
 * `args` (the words after `powprime`) with OpenSSL's spellings for command
 * `command` rewritten; words after `--` are left alone. Throws a RangeError
 * (exit 2) for a flag powprime answers with its own way.
 */
export function fromOpenSslSpellings(command: string | undefined, args: readonly string[]): string[] {
  const same = command === undefined ? undefined : SAME[command];
  const answered = command === undefined ? undefined : ANSWERED[command];
  if (!same && !answered) return [...args];
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return [...out, ...args.slice(i)];
    const answer = answered?.[a];
    if (answer !== undefined) throw new RangeError(`${a}: ${answer}`);
    const spelled = same?.[a];
    if (spelled === undefined) out.push(a);
    else if (spelled !== '') out.push(spelled);
  }
  return out;
}
