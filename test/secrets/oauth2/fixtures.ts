import type { LeaseLock } from '../../../src/jobs/lock-store.ts';
import { secretsLock } from '../../../src/secrets/lock-store.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import type { ServerResponse } from 'node:http';
import type { Clock } from '../../../src/clock.ts';
import { openStore, type Store } from '../../../src/db/client.ts';
import { createGuardedClient, type GuardedClient } from '../../../src/egress/client.ts';
import { createLogger } from '../../../src/log.ts';
import { createOAuth2Refresher, type OAuth2Refresher, type OAuth2RefresherOptions, type OAuth2RefreshEvent } from '../../../src/secrets/oauth2/refresher.ts';
import type { OAuth2Grant, RefreshedTokens, TokenStore } from '../../../src/secrets/oauth2/token-store.ts';
import { startTlsServer, type ReceivedRequest, type TestServer } from '../../helpers/tls.ts';

export const CLIENT_ID = 'client-abc';
export const CLIENT_SECRET = 'client-secret-canary-7f3a';
export const USER_ID = 'usr_oauth2';

/**
 * The vault's side, in memory: what several processes would share through the database.
 * Each call yields first, so concurrent callers interleave as they would around real I/O.
 */
export class MemoryTokenStore implements TokenStore {
  readonly grants = new Map<string, OAuth2Grant>();
  saves = 0;
  reads = 0;

  async read(secretId: string): Promise<OAuth2Grant | null> {
    this.reads++;
    await tick();
    const grant = this.grants.get(secretId);
    return grant ? { ...grant } : null;
  }

  async save(secretId: string, tokens: RefreshedTokens): Promise<void> {
    await tick();
    const grant = this.grants.get(secretId)!;
    this.grants.set(secretId, { ...grant, ...tokens, version: grant.version + 1 });
    this.saves++;
  }

  async markNeedsReauthorization(secretId: string): Promise<void> {
    await tick();
    const grant = this.grants.get(secretId)!;
    this.grants.set(secretId, { ...grant, status: 'needs_reauthorization', version: grant.version + 1 });
  }
}

/** A token endpoint that rotates refresh tokens, so a second refresh with the old one fails as in real life. */
export interface TokenEndpoint {
  url: string;
  server: TestServer;
  /** Only requests to the token path. */
  requests(): ReceivedRequest[];
  /** The refresh token the endpoint currently accepts. */
  validRefreshToken: string;
  issued: number;
  /**
   * Bumped between tests: a request still waiting out an earlier test's delay (a client that
   * timed out) is dropped instead of rotating the next test's refresh token.
   */
  generation: number;
  /** Delay before answering, so concurrent callers pile up behind the first refresh. */
  delayMs: number;
  /** Omit refresh_token from successful answers (a server that does not rotate). */
  rotate: boolean;
  /** Replaces the answer entirely. */
  override?: (req: ReceivedRequest, res: ServerResponse) => void;
}

export function form(req: ReceivedRequest): URLSearchParams {
  return new URLSearchParams(req.body.toString('utf8'));
}

/** RFC 6749 2.3.1: id and secret are form-urlencoded before the Basic encoding. */
function basicCredentials(req: ReceivedRequest): [string, string] | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith('Basic ')) return null;
  const [id = '', secret = ''] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
  const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  return [decode(id), decode(secret)];
}

export async function startTokenEndpoint(): Promise<TokenEndpoint> {
  const server = await startTlsServer();
  const endpoint: TokenEndpoint = {
    url: `${server.url}/oauth/token`,
    server,
    requests: () => server.received.filter((r) => r.path === '/oauth/token'),
    validRefreshToken: 'rt-0',
    issued: 0,
    generation: 0,
    delayMs: 50,
    rotate: true,
  };
  server.handle(async (req, res) => {
    const generation = endpoint.generation;
    await new Promise((r) => setTimeout(r, endpoint.delayMs));
    if (generation !== endpoint.generation) return void res.destroy();
    if (endpoint.override) return endpoint.override(req, res);
    const params = form(req);
    const json = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const [id, secret] = basicCredentials(req) ?? [params.get('client_id'), params.get('client_secret')];
    if (id !== CLIENT_ID || secret !== CLIENT_SECRET) return json(400, { error: 'invalid_client' });
    if (params.get('grant_type') !== 'refresh_token' || params.get('refresh_token') !== endpoint.validRefreshToken) {
      return json(400, { error: 'invalid_grant' });
    }
    endpoint.issued++;
    const answer: Record<string, unknown> = { access_token: `at-${endpoint.issued}`, token_type: 'Bearer', expires_in: 3600 };
    if (endpoint.rotate) answer.refresh_token = endpoint.validRefreshToken = `rt-${endpoint.issued}`;
    json(200, answer);
  });
  return endpoint;
}

/** A manual clock: lease expiry is tested by moving it. */
export function manualClock(start = 1_700_000_000_000): Clock & { set(ms: number): void; advance(ms: number): void } {
  let now = start;
  return { now: () => now, set: (ms) => void (now = ms), advance: (ms) => void (now += ms) };
}

export interface Fixture {
  dir: string;
  /** One connection per simulated process, all on the same SQLite file. */
  stores: Store[];
  tokens: MemoryTokenStore;
  client: GuardedClient;
  logs: string[];
  events: OAuth2RefreshEvent[];
  /** A refresher as a separate process would have it: its own connection and in-process map. */
  refresher(opts?: Partial<OAuth2RefresherOptions>): OAuth2Refresher;
  addSecret(id: string, grant?: Partial<OAuth2Grant>): OAuth2Grant;
  lockOf(id: string): { lock_owner: string | null; lock_until: number | null };
  /**
   * Settles once the refreshers' lock takes were refused `count` times in all (another owner
   * holds the lock): a refresher is then known to wait behind it, with no sleep guessing when.
   */
  lockRefused(count?: number): Promise<void>;
  close(): Promise<void>;
}

/** Counts the refused takes of the locks it wraps and wakes whoever waits for a count. */
function refusalLatch() {
  let refused = 0;
  const waiting: { count: number; wake: () => void }[] = [];
  const wakeDue = () => {
    for (const w of waiting.filter((x) => refused >= x.count)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.wake();
    }
  };
  return {
    wrap: (lock: LeaseLock): LeaseLock => ({
      take: async (id, owner, now, leaseMs) => {
        const taken = await lock.take(id, owner, now, leaseMs);
        if (!taken) {
          refused++;
          wakeDue();
        }
        return taken;
      },
      release: (id, owner) => lock.release(id, owner),
    }),
    reached: (count: number) => new Promise<void>((wake) => {
      waiting.push({ count, wake });
      wakeDue();
    }),
  };
}

export function createFixture(endpoint: TokenEndpoint, clientOpts: { allow?: string[] } = {}): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'mimic-oauth2-'));
  const file = join(dir, 'mimic.db');
  const first = openStore(file);
  first.sqlite.prepare("INSERT INTO users (id, name, credits, permissions, created_at) VALUES (?, 'oauth2', 0, '[]', 0)").run(USER_ID);
  const stores = [first];
  const tokens = new MemoryTokenStore();
  const client = createGuardedClient({
    allow: clientOpts.allow ?? ['localhost', '127.0.0.1'],
    ca: [endpoint.server.ca],
    defaultTimeoutMs: 5000,
    defaultMaxBytes: 1024 * 1024,
  });
  const logs: string[] = [];
  const events: OAuth2RefreshEvent[] = [];
  const log = createLogger((line) => logs.push(line));
  let refreshers = 0;
  const refusals = refusalLatch();
  return {
    dir,
    stores,
    tokens,
    client,
    logs,
    events,
    refresher(opts = {}) {
      const store = refreshers++ === 0 ? first : openStore(file);
      if (store !== first) stores.push(store);
      return createOAuth2Refresher({ tokens, lock: refusals.wrap(secretsLock(store.sqlite)), client, clock: { now: () => Date.now() }, log, onEvent: (e) => events.push(e), ...opts });
    },
    addSecret(id, grant = {}) {
      first.sqlite
        .prepare("INSERT INTO secrets (id, user_id, provider, type, status, version, created_at, updated_at) VALUES (?, ?, 'example', 'oauth2', 'active', 1, 0, 0)")
        .run(id, USER_ID);
      const full: OAuth2Grant = {
        secretId: id,
        userId: USER_ID,
        tokenUrl: endpoint.url,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        accessToken: 'at-0',
        refreshToken: 'rt-0',
        expiresAt: Date.now() - 1000,
        status: 'active',
        version: 1,
        ...grant,
      };
      tokens.grants.set(id, full);
      return full;
    },
    lockOf: (id) => first.sqlite.prepare('SELECT lock_owner, lock_until FROM secrets WHERE id = ?').get(id) as { lock_owner: string | null; lock_until: number | null },
    lockRefused: (count = 1) => refusals.reached(count),
    async close() {
      await client.close();
      for (const s of stores) s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
