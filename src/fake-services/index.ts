/** The fake services as a library: `startFakeServices` (behind `powprime fake-services` and `powprime/testing`), the local servers for offline development and the tests. */
import { realClock, type Clock } from '../clients/clock.ts';
import { startServer, type RunningServer } from './http-server.ts';
import { FakeQuestionService, type FakeQuestionOptions } from './question-service.ts';
import { FakeRegistryService, type FakeRegistryOptions } from './registry-service.ts';
import { FakeAdService } from './ad-service.ts';

export interface FakeServicesOptions {
  port?: number;
  host?: string;
  clock?: Clock;
  question?: FakeQuestionOptions;
  registry?: FakeRegistryOptions;
  /** Every service without rate limits (for offline work with clients run with --no-limits). */
  unlimited?: boolean;
  /** 429s carry Retry-After (in seconds until the ban ends); the spec does not show it. */
  retryAfter?: boolean;
  /** Called once per request with "METHOD /path → status". */
  onRequest?: (line: string) => void;
}

export interface FakeServices extends RunningServer {
  question: FakeQuestionService;
  registry: FakeRegistryService;
  ads: FakeAdService;
  /** Requests seen, by "METHOD /path", for tests. */
  requests: string[];
}

export async function startFakeServices(opts: FakeServicesOptions = {}): Promise<FakeServices> {
  const clock = opts.clock ?? realClock;
  const shared = { ...(opts.unlimited ? { unlimited: true } : {}), ...(opts.retryAfter ? { retryAfter: true } : {}) };
  const question = new FakeQuestionService({ ...shared, ...opts.question });
  const registry = new FakeRegistryService(opts.registry);
  const ads = new FakeAdService(shared);
  const requests: string[] = [];
  const running = await startServer(
    [
      (req) => {
        requests.push(`${req.method} ${req.url.pathname}`);
        return null;
      },
      question.handler,
      registry.handler,
      ads.handler,
    ],
    clock,
    opts.port ?? 0,
    opts.host ?? '127.0.0.1',
    opts.onRequest,
  );
  return { ...running, question, registry, ads, requests };
}
