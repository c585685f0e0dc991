/**
 * Client for the question service: every route, proof-of-work-gated posting, the spec's limits,
 * on-disk file cache, and the attribution its spec requires on everything delivered.
 */
import path from 'node:path';
import { solvePow } from '../../pow/solve.ts';
import { HUMAN_NOTICE, type Attribution } from './attribution.ts';
import { FileCache } from './file-cache.ts';
import { BadRequestError, ChallengeExpiredError, ProtocolError, RateLimitedError, RateLimitWaitError, UnauthorizedError } from '../errors.ts';
import { HOUR } from '../clock.ts';
import { MAX_IDS_PER_ANSWERS, MAX_PER_PAGE, QUESTION_ROUTES, TOKEN_LIFETIME_MS, type QuestionRoute } from './routes.ts';
import { fillPath } from '../http/routes.ts';
import { ServiceClient, type CallSpec } from '../http/service-client.ts';
import { checkQuestionOptions, QUESTION_CLIENT_OPTIONS, type QuestionClientOptions, type QuestionPowOptions } from './options.ts';
import type { HttpResponse } from '../http/transport.ts';
import { checkArray, checkObject } from '../http/shapes.ts';
import { checkFileListings, checkItems, checkStats, checkThread, type DeliveredFile, type FileListing, type ItemError, type Stats, type Thread, type ThreadItem } from './threads.ts';
import { argumentError, checkSignal, show } from '../../validate.ts';
import { checkOptions, optionNames } from '../../option-checks.ts';

/** The options of config() and query(), and of page(). */
const SIGNAL_ONLY = optionNames<{ signal?: AbortSignal }>()(['signal']);
const PAGE_OPTIONS = optionNames<{ perPage?: number }>()(['perPage']);

/** The session cookie the config route sets (the spec names it). */
const SESSION_COOKIE = '__Host-session';

/** A token older than this is not used for a POST (it expires at 16 minutes). */
const TOKEN_USE_LIMIT_MS = TOKEN_LIFETIME_MS - 60_000;
const MODELS_MAX_AGE_MS = HOUR;

export class QuestionClient extends ServiceClient<QuestionRoute> {
  readonly homepage: string;
  private modelSites: { sites: string[]; at: number } | null = null;
  /** When this client last asked the config route for a session (ms since the epoch). */
  private sessionAsked: number | null = null;
  private readonly fileCache: FileCache;
  private readonly pow: QuestionPowOptions;

  constructor(opts: QuestionClientOptions) {
    super('question', QUESTION_ROUTES, opts, QUESTION_CLIENT_OPTIONS);
    checkQuestionOptions(opts);
    this.homepage = opts.homepageUrl ?? `${this.baseUrl.origin}/`;
    this.fileCache = new FileCache(path.join(this.stateDir, 'files'), this.clock, opts.fileMaxAgeMs ?? 30 * 24 * HOUR);
    this.pow = opts.pow ?? {};
  }

  /** Model websites (GET /gpt/api/models). */
  async models(): Promise<string[]> {
    const route = this.label('models');
    const res = await this.call({ route: 'models', cache: true });
    const sites = checkArray(route, this.json(res, route));
    if (!sites.every((s) => typeof s === 'string')) throw new ProtocolError(route, 'expected an array of URLs');
    this.modelSites = { sites: sites as string[], at: this.clock.now() };
    return sites as string[];
  }

  /** The attribution for delivered content; model websites refreshed when older than an hour. */
  async attribution(): Promise<Attribution> {
    if (!this.modelSites || this.clock.now() - this.modelSites.at > MODELS_MAX_AGE_MS) {
      try {
        await this.models();
      } catch (err) {
        if (!this.modelSites) throw err;
        // Keep crediting the last known list rather than fail a delivery.
      }
    }
    return { notice: HUMAN_NOTICE, homepage: this.homepage, models: [...this.modelSites!.sites] };
  }

  /** A fresh proof-of-work challenge (and session cookie). */
  async config(opts: { signal?: AbortSignal } = {}): Promise<{ nonce: string; difficulty: number }> {
    checkOptions('options', opts, 'config', SIGNAL_ONLY);
    const route = this.label('config');
    const res = await this.call({ route: 'config', ...(opts.signal ? { signal: opts.signal } : {}) });
    const o = checkObject(route, this.json(res, route), { nonce: 'string', difficulty: 'integer' });
    return { nonce: o.nonce as string, difficulty: o.difficulty as number };
  }

  /**
   * Posts a question: a fresh config, the proof of work, then the POST with the
   * session cookie. Returns the question id.
   *
   * The query route's slot (1/min, 8/hour, 16/day) is waited for before the
   * config call, as a token lives 16 minutes and the slot may be a day away.
   * A token is good for one request, so the POST is never resent as it was: a
   * refused solution or token (401) or a 429 gets a new config and another
   * try, within `attempts`; an answer that says nothing of the question's
   * fate (a 5xx, a timeout, a connection dropped after sending, a garbled
   * body) is thrown, since the service may have stored the question and a
   * second POST would post it twice. A service that cannot be reached at all
   * is a NetworkError at once, as on every route.
   */
  async query(prompt: string, opts: { signal?: AbortSignal } = {}): Promise<string> {
    checkOptions('options', opts, 'query', SIGNAL_ONLY);
    if (typeof prompt !== 'string') throw argumentError(TypeError, 'prompt', `must be a string (got ${show(prompt)})`);
    if (prompt.trim() === '') throw argumentError(RangeError, 'prompt', 'must not be empty');
    checkSignal('signal', opts.signal);
    const route = this.label('query');
    const linked = this.signalFor(opts.signal);
    try {
      return await this.queryWith(prompt, route, linked.signal);
    } finally {
      linked.dispose();
    }
  }

  private async queryWith(prompt: string, route: string, signal: AbortSignal | undefined): Promise<string> {
    const withSignal = signal ? { signal } : {};
    let lastError: unknown;
    for (let attempt = 0; attempt < this.o.attempts; attempt++) {
      await this.waitForSlot('query', signal);
      // Age counted from before the config request: the conservative end.
      const issued = this.clock.now();
      const challenge = await this.config(withSignal);
      const { solution } = await solvePow(challenge, { ...this.pow, ...withSignal });
      // Never spend the single query slot on a token about to expire.
      const left = TOKEN_USE_LIMIT_MS - (this.clock.now() - issued);
      if (left <= 0) continue;
      try {
        const res = await this.call({ route: 'query', json: { solution, prompt }, noRetry: true, maxWaitMs: left, ...withSignal });
        const o = checkObject(route, this.json(res, route), { id: 'string' });
        return o.id as string;
      } catch (err) {
        // Another process took the slot meanwhile, past the token's life: wait again, with a new token.
        const tokenOutlived = err instanceof RateLimitWaitError && (this.o.maxWaitMs === undefined || left < this.o.maxWaitMs);
        if (!(tokenOutlived || err instanceof UnauthorizedError || err instanceof RateLimitedError)) throw err;
        lastError = err;
      }
    }
    throw lastError ?? new ChallengeExpiredError(route);
  }

  /**
   * The spec wants the session cookie on every call but models; a session
   * comes from the config route, so a client without one asks for it first:
   * one try, when the config route has a slot now (never a wait for it), at
   * most once an hour (a service that sets no cookie must not cost a config
   * slot a call). Failing that, the call goes out without it and meets
   * whatever the service says to that, or its own wait or outage.
   */
  private async session(urlPath: string): Promise<void> {
    if (this.cookies.header(this.url(urlPath))) return;
    if (this.sessionAsked !== null && this.clock.now() - this.sessionAsked < HOUR) return;
    if (this.limiter.freshSlot('config') > this.clock.now()) return;
    this.sessionAsked = this.clock.now();
    try {
      await this.call({ route: 'config', noRetry: true, maxWaitMs: 0 });
    } catch (err) {
      if (this.o.signal?.aborted) throw err;
    }
  }

  /**
   * A read with the session cookie (see session()). A 400 to a read that
   * carried one is taken as a session the service no longer knows (it
   * restarted, or the session expired): the cookie is dropped, a new
   * session asked for, and the read tried once more.
   */
  private async read(spec: CallSpec<QuestionRoute>): Promise<HttpResponse> {
    const urlPath = fillPath(QUESTION_ROUTES[spec.route], spec.params);
    await this.session(urlPath);
    const had = this.cookies.header(this.url(urlPath)) !== undefined;
    try {
      return await this.call(spec);
    } catch (err) {
      if (!(err instanceof BadRequestError) || !had) throw err;
      this.cookies.store(this.url('/'), `${SESSION_COOKIE}=; Path=/; Max-Age=0`);
      this.sessionAsked = null;
      await this.session(urlPath);
      return this.call(spec);
    }
  }

  /** The answered thread, or null while it is not answered (or does not exist: the service does not tell). */
  async answer(id: string): Promise<Thread | null> {
    if (typeof id !== 'string' || id === '') throw argumentError(TypeError, 'id', `must be a non-empty string (got ${show(id)})`);
    const route = this.label('answer');
    const res = await this.read({ route: 'answer', params: { id }, cache: true, accept: [404] });
    if (res.status === 404) return null;
    return checkThread(route, this.json(res, route), await this.attribution());
  }

  /** Threads (or per-id errors) for any number of ids, asked 128 at a time. */
  async answers(ids: string[]): Promise<(ThreadItem | ItemError)[]> {
    if (!Array.isArray(ids) || !ids.every((i) => typeof i === 'string')) throw argumentError(TypeError, 'ids', `must be an array of strings (got ${show(ids)})`);
    const route = this.label('answers');
    const out: (ThreadItem | ItemError)[] = [];
    for (let i = 0; i < ids.length; i += MAX_IDS_PER_ANSWERS) {
      const batch = ids.slice(i, i + MAX_IDS_PER_ANSWERS);
      const res = await this.read({ route: 'answers', json: batch, cache: true });
      out.push(...checkItems(route, this.json(res, route), await this.attribution()));
    }
    return out;
  }

  /** Page n of threads (numbering as the service has it); perPage with 1 ≤ |perPage| ≤ 128. */
  async page(n: number, opts: { perPage?: number } = {}): Promise<(ThreadItem | ItemError)[]> {
    checkOptions('options', opts, 'page', PAGE_OPTIONS);
    if (!Number.isInteger(n)) throw argumentError(TypeError, 'n', `must be an integer (got ${show(n)})`);
    const per = opts.perPage;
    if (per !== undefined && (!Number.isInteger(per) || Math.abs(per) < 1 || Math.abs(per) > MAX_PER_PAGE)) {
      throw argumentError(RangeError, 'perPage', `must be a nonzero integer from -${MAX_PER_PAGE} to ${MAX_PER_PAGE} (got ${per})`);
    }
    const route = this.label('page');
    const res = await this.read({ route: 'page', params: { n: String(n) }, ...(per !== undefined ? { json: { per_page: per } } : {}), cache: true });
    return checkItems(route, this.json(res, route), await this.attribution());
  }

  async files(): Promise<FileListing[]> {
    const route = this.label('files');
    const res = await this.read({ route: 'files', cache: true });
    return checkFileListings(route, this.json(res, route));
  }

  async stats(): Promise<Stats> {
    const route = this.label('stats');
    const res = await this.read({ route: 'stats', cache: true });
    return checkStats(route, this.json(res, route));
  }

  /** A file of a question, served from the disk cache when it is there and fresh. */
  async file(id: string, filename: string): Promise<DeliveredFile> {
    const cached = this.fileCache.get(id, filename);
    if (cached) return { id, filename, ...cached, fromCache: true, attribution: await this.attribution() };
    const res = await this.read({ route: 'file', params: { id, filename }, raw: true });
    // The response's own caching headers (http-cache-semantics), capped; none at all: the default.
    const allowed = this.cache.freshFor({ method: 'GET', url: this.url(fillPath(QUESTION_ROUTES.file, { id, filename })) }, res);
    const mimetype = typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : null;
    const kept = this.fileCache.put(id, filename, res.body, mimetype, allowed ?? this.fileCache.maxAgeMs);
    return { id, filename, path: kept, content: res.body, mimetype, fromCache: false, attribution: await this.attribution() };
  }
}
