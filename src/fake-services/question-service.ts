/**
 * The question service as its spec describes it: `__Host-session` cookie,
 * single-use nonces that expire after 16 minutes, real proof-of-work checks,
 * 400/401/404 bodies, answers that appear later (some with files), pages,
 * stats, models, per-route limits with 429 and a temporary address ban.
 * Where the spec says "not shown", the choices are this server's and are
 * named in its options.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../clients/clock.ts';
import { ChallengeError, type ChallengeRefusal } from '../pow/challenge-error.ts';
import { createChallenge } from '../pow/challenge.ts';
import { verifySolutionSync } from '../pow/challenge-verify.ts';
import { MemoryReplayStore } from '../pow/replay-store.ts';
import type { FakeHandler, FakeRequest, FakeResponse } from './http-server.ts';
import { DAY, HOUR, MINUTE, ServerLimits, type ServerLimitTable } from './limits.ts';

// The spec's constants, kept here apart from the client's (see limits.ts).
type QuestionRoute = 'models' | 'config' | 'query' | 'answer' | 'file' | 'stats' | 'files' | 'page' | 'answers';
const TOKEN_LIFETIME_MS = 16 * MINUTE;
/** The service's words for a refused solution (the spec shows the 401, not its text). */
const REFUSALS: Partial<Record<ChallengeRefusal, string>> = { expired: 'challenge expired', replayed: 'challenge already used' };
const MAX_PER_PAGE = 128;
const MAX_IDS_PER_ANSWERS = 128;

export interface FakeQuestionOptions {
  difficulty?: number;
  /** Clock time from a question to its answer. */
  answerDelayMs?: number;
  /** Answers to prompts containing this word carry a file. */
  fileWord?: string;
  /** Threads per page when the request names none (not shown in the spec). */
  defaultPerPage?: number;
  /** How long an address stays banned after a 429 (the spec: usually 40 to 60 minutes). */
  banMs?: number;
  /** Send Retry-After with 429 (not shown in the spec). */
  retryAfter?: boolean;
  /** Turn the limits off (for tests of other behaviour). */
  unlimited?: boolean;
  models?: string[];
  /** Refuse this many correct solutions with 401 first (to test the client's retry). */
  refuseSolutions?: number;
}

interface Token {
  nonce: string;
  used: boolean;
}

interface Question {
  id: string;
  question: string;
  time: number;
  answerAt: number;
  files: { filename: string; mimetype: string; content: Buffer }[];
}

// The spec's limits, written out here on their own (not imported from the
// client) so a mistake in the client's table cannot hide in the tests.
const SERVER_LIMITS: ServerLimitTable = {
  models: [{ limit: 1, periodMs: MINUTE }],
  config: [{ limit: 1, periodMs: MINUTE }],
  query: [
    { limit: 1, periodMs: MINUTE },
    { limit: 8, periodMs: HOUR },
    { limit: 16, periodMs: DAY },
  ],
  answer: [{ limit: 1, periodMs: MINUTE }],
  stats: [{ limit: 1, periodMs: MINUTE }],
  files: [{ limit: 1, periodMs: MINUTE }],
  page: [
    { limit: 1, periodMs: MINUTE },
    { limit: 8, periodMs: HOUR },
  ],
  answers: [
    { limit: 1, periodMs: MINUTE },
    { limit: 8, periodMs: HOUR },
  ],
};

const err = (status: number, error: string, extra: Record<string, string> = {}): FakeResponse => ({ status, body: { error, ...extra } });

export class FakeQuestionService {
  readonly limits: ServerLimits;
  private readonly tokens = new Map<string, Token>(); // by session
  // Challenges are issued and checked as a real service would with powprime: signed, bound to the session, single use.
  private readonly keys = [randomBytes(32)];
  private readonly used = new MemoryReplayStore();
  private readonly questions: Question[] = [];
  private readonly byId = new Map<string, Question>();
  readonly o: Required<FakeQuestionOptions>;

  constructor(opts: FakeQuestionOptions = {}) {
    this.o = {
      difficulty: 3,
      answerDelayMs: 10 * MINUTE,
      fileWord: 'file',
      defaultPerPage: 20,
      banMs: 50 * MINUTE,
      retryAfter: false,
      unlimited: false,
      models: ['https://models.example/alpha', 'https://models.example/beta'],
      refuseSolutions: 0,
      ...opts,
    };
    this.limits = new ServerLimits(this.o.unlimited ? {} : SERVER_LIMITS, this.o.banMs, this.o.retryAfter);
  }

  private threadOf(q: Question): Record<string, unknown> {
    const t: Record<string, unknown> = { question: q.question, answer: `**Answer** to: ${q.question}`, answeree: 'answerer-7', time: q.time };
    if (q.files.length) t.files = q.files.map((f) => ({ filename: f.filename, mimetype: f.mimetype, size: f.content.length }));
    return t;
  }

  private answered(q: Question | undefined, now: number): q is Question {
    return q !== undefined && q.answerAt <= now;
  }

  readonly handler: FakeHandler = (req: FakeRequest, clock: Clock) => {
    const p = req.url.pathname;
    let m: RegExpMatchArray | null;
    const route = ((): [QuestionRoute, () => FakeResponse] | null => {
      if (req.method === 'GET' && p === '/gpt/api/models') return ['models', () => ({ status: 200, headers: { 'cache-control': 'max-age=3600' }, body: this.o.models })];
      if (req.method === 'GET' && p === '/gpt/api/config') return ['config', () => this.config(clock)];
      if (req.method === 'POST' && p === '/gpt/api/query') return ['query', () => this.query(req, clock)];
      if (req.method === 'GET' && (m = p.match(/^\/gpt\/api\/answer\/([^/]+)$/))) return ['answer', () => this.answer(decodeURIComponent(m![1]!), clock)];
      if (req.method === 'GET' && (m = p.match(/^\/gpt\/answer\/([^/]+)\/file\/([^/]+)$/))) return ['file', () => this.file(decodeURIComponent(m![1]!), decodeURIComponent(m![2]!), clock)];
      if (req.method === 'GET' && p === '/gpt/api/stats') return ['stats', () => this.stats(clock)];
      if (req.method === 'GET' && p === '/gpt/api/files') return ['files', () => this.files(clock)];
      if (req.method === 'GET' && (m = p.match(/^\/gpt\/api\/page\/(-?\d+)$/))) return ['page', () => this.page(Number(m![1]), req, clock)];
      if (req.method === 'GET' && p === '/gpt/api/answers') return ['answers', () => this.answers(req, clock)];
      return null;
    })();
    if (!route) return null;
    const refused = this.limits.check(route[0], req.address, clock);
    if (refused) return refused;
    // Every API call but models (and config, which sets it) wants the cookie.
    // The spec gives query's refusal (400); the reads' is not shown, and the
    // same 400 keeps a client that forgets the cookie from passing its tests.
    if (route[0] !== 'models' && route[0] !== 'config' && route[0] !== 'file' && route[0] !== 'query') {
      const session = this.session(req);
      if (!session || !this.tokens.has(session)) return err(400, 'missing __Host-session cookie (call config first)');
    }
    return route[1]();
  };

  private session(req: FakeRequest): string | null {
    const m = (req.headers.cookie ?? '').match(/(?:^|;\s*)__Host-session=([^;]+)/);
    return m ? m[1]! : null;
  }

  private config(clock: Clock): FakeResponse {
    const session = randomBytes(16).toString('hex');
    const challenge = createChallenge({ keys: this.keys, difficulty: this.o.difficulty, ttlMs: TOKEN_LIFETIME_MS, audience: session, now: clock.now() });
    this.tokens.set(session, { nonce: challenge.nonce, used: false });
    return {
      status: 200,
      headers: { 'set-cookie': `__Host-session=${session}; Path=/; Secure; HttpOnly; SameSite=Strict`, 'cache-control': 'no-store' },
      body: { nonce: challenge.nonce, difficulty: this.o.difficulty },
    };
  }

  private query(req: FakeRequest, clock: Clock): FakeResponse {
    const session = this.session(req);
    if (!session) return err(400, 'missing __Host-session cookie');
    let body: { solution?: unknown; prompt?: unknown };
    try {
      body = JSON.parse(req.body || '{}') as typeof body;
    } catch {
      return err(400, 'body is not JSON');
    }
    if (typeof body.solution !== 'string' || typeof body.prompt !== 'string') return err(400, 'solution and prompt are required');
    const token = this.tokens.get(session);
    if (!token) return err(401, 'no challenge for this session; call config first');
    if (token.used) return err(401, 'challenge already used');
    // One request per token, whatever its solution (the spec): a wrong one spends it too.
    token.used = true;
    try {
      verifySolutionSync({ nonce: token.nonce, solution: body.solution }, { keys: this.keys, audience: session, replayStore: this.used, now: clock.now() });
    } catch (e) {
      if (!(e instanceof ChallengeError)) throw e;
      return err(401, REFUSALS[e.reason] ?? 'invalid proof-of-work solution');
    }
    if (this.o.refuseSolutions > 0) {
      this.o.refuseSolutions--;
      return err(401, 'invalid proof-of-work solution');
    }
    const q: Question = {
      id: randomUUID(),
      question: body.prompt,
      time: Math.floor(clock.now() / 1000),
      answerAt: clock.now() + this.o.answerDelayMs,
      files: body.prompt.includes(this.o.fileWord) ? [{ filename: 'notes.txt', mimetype: 'text/plain', content: Buffer.from(`notes for: ${body.prompt}\n`) }] : [],
    };
    this.questions.push(q);
    this.byId.set(q.id, q);
    return { status: 200, body: { id: q.id } };
  }

  private answer(id: string, clock: Clock): FakeResponse {
    const q = this.byId.get(id);
    if (!this.answered(q, clock.now())) return err(404, 'question not answered or not existing');
    return { status: 200, headers: { 'cache-control': 'max-age=300' }, body: this.threadOf(q) };
  }

  private file(id: string, filename: string, clock: Clock): FakeResponse {
    const q = this.byId.get(id);
    const f = this.answered(q, clock.now()) ? q.files.find((x) => x.filename === filename) : undefined;
    if (!f) return err(404, 'no such file');
    return { status: 200, headers: { 'content-type': f.mimetype, 'cache-control': 'max-age=2592000' }, body: f.content };
  }

  private visible(clock: Clock): Question[] {
    return this.questions.filter((q) => this.answered(q, clock.now()));
  }

  private stats(clock: Clock): FakeResponse {
    const v = this.visible(clock);
    return {
      status: 200,
      headers: { 'cache-control': 'max-age=60' },
      body: { count: this.questions.length, files: v.reduce((n, q) => n + q.files.length, 0), pages: Math.ceil(v.length / this.o.defaultPerPage) },
    };
  }

  private files(clock: Clock): FakeResponse {
    const out = this.visible(clock).flatMap((q) => q.files.map((f) => ({ filename: f.filename, mimetype: f.mimetype, size: f.content.length, question: q.id })));
    return { status: 200, body: out };
  }

  /** Pages count from 1; a negative per_page lists newest first (both choices of this server). */
  private page(n: number, req: FakeRequest, clock: Clock): FakeResponse {
    let per = this.o.defaultPerPage;
    if (req.body) {
      let body: { per_page?: unknown };
      try {
        body = JSON.parse(req.body) as typeof body;
      } catch {
        return err(400, 'body is not JSON');
      }
      if (body.per_page !== undefined) {
        if (typeof body.per_page !== 'number' || !Number.isInteger(body.per_page) || Math.abs(body.per_page) < 1 || Math.abs(body.per_page) > MAX_PER_PAGE) {
          return err(400, `per_page must be an integer with 1 <= |per_page| <= ${MAX_PER_PAGE}`);
        }
        per = body.per_page;
      }
    }
    const v = this.visible(clock);
    const ordered = per < 0 ? [...v].reverse() : v;
    const size = Math.abs(per);
    const slice = n >= 1 ? ordered.slice((n - 1) * size, n * size) : [];
    return { status: 200, body: slice.map((q) => ({ id: q.id, ...this.threadOf(q) })) };
  }

  private answers(req: FakeRequest, clock: Clock): FakeResponse {
    let ids: unknown;
    try {
      ids = JSON.parse(req.body || 'null');
    } catch {
      return err(400, 'body is not JSON');
    }
    if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string')) return err(400, 'body must be an array of question ids');
    if (ids.length > MAX_IDS_PER_ANSWERS) return err(400, `at most ${MAX_IDS_PER_ANSWERS} ids per request`);
    return {
      status: 200,
      body: (ids as string[]).map((id) => {
        const q = this.byId.get(id);
        return this.answered(q, clock.now()) ? { id, ...this.threadOf(q) } : { error: 'question not answered or not existing', id };
      }),
    };
  }
}
