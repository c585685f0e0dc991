import type { Command } from 'commander';
import { AdClient } from '../clients/ads/client.ts';
import { adJson, type Ad } from '../clients/ads/ad.ts';
import { sanitizeFilename } from '../clients/http/file-names.ts';
import { clientOptions, serviceFlags, withCommand, type ServiceFlags } from './service-command.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { exitFailed } from './exit-failed.ts';
import { replaceablePath } from './out-path.ts';
import { terminalLine } from './terminal-text.ts';

function makeClient(o: ServiceFlags): AdClient {
  return new AdClient(clientOptions(o, 'POWPRIME_ADS_URL'));
}

function show(client: AdClient, ad: Ad, json?: boolean): string {
  // The contact link is built now from the token and printed, never stored.
  const withLinks = { ...ad, image: client.imageUrl(ad).href, contactUrl: client.contactUrl(ad).href };
  if (json) return JSON.stringify(adJson(withLinks));
  const t = terminalLine;
  return `${t(ad.alt)} — by ${t(ad.author)} (${t(ad.license)})\n  image:   ${t(withLinks.image)}\n  contact: ${t(withLinks.contactUrl)}${ad.to ? `\n  link:    ${t(ad.to)}` : ''}`;
}

export function registerAds(program: Command): void {
  const a = program.command('ads').description('the ad service');
  const common = (c: Command): Command => serviceFlags(c, 'ads', 'POWPRIME_ADS_URL');
  const act = (fn: (c: AdClient, o: ServiceFlags, cmd: Command) => Promise<void>) => withCommand<ServiceFlags>((cmd, o) => fn(makeClient(o), o, cmd));
  common(a.command('random'))
    .description('one ad chosen by the service')
    .action(act(async (c, o) => void process.stdout.write(`${show(c, await c.random(), o.json)}\n`)));
  common(a.command('pick'))
    .description('one ad chosen locally from the cached index, by bias')
    .action(act(async (c, o) => void process.stdout.write(`${show(c, await c.pick(), o.json)}\n`)));
  common(a.command('all'))
    .description('every ad (cached)')
    .action(
      act(async (c, o) => {
        const ads = await c.all();
        process.stdout.write(o.json ? `[${ads.map((ad) => show(c, ad, true)).join(',')}]\n` : ads.map((ad) => `${show(c, ad)}\n`).join(''));
        if (ads.length === 0) exitFailed('the service has no ads');
      }),
    );
  common(a.command('leaderboard'))
    .description('rendered-ad counts by site (cached)')
    .action(
      act(async (c, o) => {
        const lb = await c.leaderboard();
        process.stdout.write(
          o.json
            ? `${JSON.stringify(lb)}\n`
            : Object.entries(lb)
                .sort((x, y) => y[1] - x[1])
                .map(([k, v]) => `${v}\t${terminalLine(k)}\n`)
                .join(''),
        );
        // Found nothing (exit 1): no ad image has been fetched from any site yet; --json still prints {}.
        if (Object.keys(lb).length === 0) exitFailed('the leaderboard is empty: no site has shown an ad yet');
      }),
    );
  common(a.command('image').argument('<filename>').option('--out <path>', 'where to write it (default: ./<filename>)'))
    .description("an ad's image (cached on disk)")
    .action(
      act(async (c, o, cmd) => {
        const name = cmd.args[0]!;
        // Judged before the download: a device, a FIFO or a missing folder is refused, a link is written through.
        const dest = replaceablePath(cmd.opts<{ out?: string }>().out ?? sanitizeFilename(name));
        const img = await c.image({ filename: name });
        // Whole or not at all, every byte checked: a full disk is one line, not a cut image.
        writeFileAtomic(dest, img.content, 0o644);
        process.stdout.write(o.json ? `${JSON.stringify({ path: dest, bytes: img.content.length, fromCache: img.fromCache })}\n` : `${terminalLine(dest)}: ${img.content.length} bytes\n`);
      }),
    );
}
