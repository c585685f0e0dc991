/** The last lines of `powprime search`: what this run added, and the registry's tallies. */
import { plural } from './plural.ts';
import type { SearchOpts } from './search-flags.ts';
import { TALLY_WORDS, type Registering, type RegistryTally } from './search-register.ts';

export function summary(opts: SearchOpts, s: { found: number; total: number; seed: bigint }, reg: Registering | null): void {
  // Each prime counted once, by who acted on it (see RegistryTally): this process, the keystore already, another process, or the registry's refusal.
  const tally = reg
    ? (Object.entries(reg.tally) as [keyof RegistryTally, number][])
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${n} ${TALLY_WORDS[k]}`)
        .join(', ') || 'nothing new'
    : null;
  if (!opts.out) {
    if (tally) process.stderr.write(`registry: ${tally}\n`);
    return;
  }
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ out: opts.out, found: s.found, total: s.total, seed: s.seed.toString(), ...(reg ? { registry: reg.tally } : {}) })}\n`);
  } else {
    process.stdout.write(`${plural(s.found, 'new safe prime')}; ${s.total} in ${opts.out} (seed ${s.seed})${tally ? `; registry: ${tally}` : ''}\n`);
  }
}
