import type { Command } from 'commander';
import { startFakeServices } from '../fake-services/index.ts';
import { parseIntArg } from './args.ts';

export function registerFakeServices(program: Command): void {
  program
    .command('fake-services')
    .description('run the local stand-in for the services (offline development); Ctrl-C stops it')
    .option('--port <n>', 'port on 127.0.0.1 (default: any free one)', '0')
    .option('--difficulty <d>', 'proof-of-work difficulty of the question service', '4')
    .option('--json', 'print {"url"} instead of a sentence')
    .action(async (opts: { port: string; difficulty: string; json?: boolean }) => {
      const port = parseIntArg('--port', opts.port, 0, 65535);
      const difficulty = parseIntArg('--difficulty', opts.difficulty, 0, 64);
      const fake = await startFakeServices({ port, question: { difficulty } });
      process.stdout.write(opts.json ? `${JSON.stringify({ url: fake.url.href })}\n` : `fake services listening on ${fake.url.href} (question service under /gpt/)\n`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
      await fake.close();
    });
}
