import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { startTlsServer, type ReceivedRequest, type TestServer } from '../helpers/tls.ts';
import { CANARY } from '../helpers/canaries.ts';
import { makeTool, toolBody } from '../helpers/tools.ts';
import { importOAuth2Grant } from '../../src/secrets/oauth2-import.ts';
import type { ServerResponse } from 'node:http';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.ts';
import { sqliteOf } from '../helpers/stores.ts';

/**
 * oauth2 end to end: a real loopback https server plays both the provider's token endpoint
 * (refresh_token grant, rotating refresh tokens) and its API (accepts only the current
 * access token). The service refreshes through openid-client over the guarded client.
 */
let server: TestServer;
let h: Harness;
let user: { id: string; key: string };
const provider: { access: string; refresh: string; issued: number; delayMs: number; revoked: boolean; omitRefresh: boolean } = {
  access: CANARY.accessToken,
  refresh: CANARY.refreshToken,
  issued: 0,
  delayMs: 0,
  revoked: false,
  omitRefresh: false,
};

function tokenEndpoint(req: ReceivedRequest, res: ServerResponse): void {
  const form = new URLSearchParams(req.body.toString());
  const reply = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  if (form.get('grant_type') !== 'refresh_token' || form.get('client_id') !== 'mimic-client' || form.get('client_secret') !== CANARY.clientSecret) {
    return void reply(401, { error: 'invalid_client' });
  }
  if (provider.revoked || form.get('refresh_token') !== provider.refresh) return void reply(400, { error: 'invalid_grant', error_description: 'revoked' });
  provider.issued++;
  provider.access = provider.issued === 1 ? CANARY.refreshedAccess : `${CANARY.refreshedAccess}-${provider.issued}`;
  if (!provider.omitRefresh) provider.refresh = provider.issued === 1 ? CANARY.refreshedRefresh : `${CANARY.refreshedRefresh}-${provider.issued}`;
  setTimeout(() => reply(200, { access_token: provider.access, token_type: 'Bearer', expires_in: 3600, ...(provider.omitRefresh ? {} : { refresh_token: provider.refresh }) }), provider.delayMs);
}

/** The provider's API accepts only the access token it issued last. */
function providerHandler(req: ReceivedRequest, res: ServerResponse): void {
  if (req.path === '/oauth/token') return tokenEndpoint(req, res);
  const ok = req.headers.authorization === `Bearer ${provider.access}`;
  res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify(ok ? { events: [], seen: req.headers.authorization } : { error: 'invalid_token' }));
}

beforeAll(async () => {
  server = await startTlsServer(providerHandler);
  // A loaded machine can take seconds over 50 TLS calls: the upstream deadline is the longest allowed, so only a real failure fails.
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_TOOL_TIMEOUT_MS: '60000' }, { ca: [server.ca] });
  user = h.user();
});
afterAll(async () => {
  await h.close();
  await server.close();
});
beforeEach(() => {
  server.received.length = 0;
  Object.assign(provider, { access: CANARY.accessToken, refresh: CANARY.refreshToken, issued: 0, delayMs: 0, revoked: false, omitRefresh: false });
});

async function grant(expiresIn: number): Promise<string> {
  const secret = await importOAuth2Grant(h.services.modules.secrets.deps, {
    userId: user.id, provider: 'calendar', tokenUrl: `${server.url}/oauth/token`, clientId: 'mimic-client', clientSecret: CANARY.clientSecret,
    accessToken: CANARY.accessToken, refreshToken: CANARY.refreshToken, expiresIn,
  });
  return secret.id;
}

const tokenRequests = () => server.received.filter((r) => r.path === '/oauth/token');
const apiRequests = () => server.received.filter((r) => r.path !== '/oauth/token');
const call = (tool: string) => h.call('POST', `/tools/${tool}/calls`, { key: user.key, body: { input: { city: 'Oslo' } } });

describe('oauth2 secrets in tool calls', () => {
  it('uses a valid access token as is: Authorization: Bearer <ACCESS_TOKEN>, no refresh', async () => {
    const tool = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: await grant(3600) }));
    const res = await call(tool);
    expect(res.body.output.status).toBe(200);
    expect(apiRequests()[0]!.headers.authorization).toBe(`Bearer ${CANARY.accessToken}`);
    expect(tokenRequests()).toHaveLength(0);
    expect(res.body.output.body.seen).toBe('•••••••••');
  });

  it('refreshes an expired token first, stores the new tokens encrypted, and uses them', async () => {
    const sec = await grant(0);
    const tool = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: sec }));
    const res = await call(tool);
    expect(res.body.output.status).toBe(200);
    expect(tokenRequests()).toHaveLength(1);
    expect(new URLSearchParams(tokenRequests()[0]!.body.toString()).get('refresh_token')).toBe(CANARY.refreshToken);
    expect(apiRequests()[0]!.headers.authorization).toBe(`Bearer ${CANARY.refreshedAccess}`);
    const secret = (await h.call('GET', `/secrets/${sec}`, { key: user.key })).body;
    expect(secret.status).toBe('active');
    expect(Date.parse(secret.expires_at)).toBeGreaterThan(Date.now() + 3000_000);
    // The next call uses the stored, refreshed token without another refresh.
    await call(tool);
    expect(tokenRequests()).toHaveLength(1);
    const audit = (await h.call('GET', `/audit?secret_id=${sec}&action=secret.refreshed`, { key: user.key })).body.events;
    expect(audit).toHaveLength(1);
    expect(audit[0].outcome).toBe('success');
  });

  it('50 concurrent calls with an expired token make exactly one refresh', async () => {
    provider.delayMs = 100;
    const tool = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: await grant(0) }));
    const results = await Promise.all(Array.from({ length: 50 }, () => call(tool)));
    const failed = results.filter((r) => r.body.output?.status !== 200).map((r) => r.body);
    expect(results.map((r) => r.body.output?.status), JSON.stringify(failed.slice(0, 3))).toEqual(Array(50).fill(200));
    expect(tokenRequests()).toHaveLength(1);
    expect(apiRequests().every((r) => r.headers.authorization === `Bearer ${CANARY.refreshedAccess}`)).toBe(true);
  });

  it('two service processes, 25 concurrent calls each, with an expired token: exactly one refresh', async () => {
    provider.delayMs = 300;
    const sec = await grant(0);
    const tool = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: sec }));
    const caFile = join(h.config.dataDir, 'upstream-ca.pem');
    writeFileSync(caFile, server.ca);
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/tools/refresh-child.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: h.config.dataDir, USER_ID: user.id, TOOL_ID: tool, COUNT: '25', NODE_EXTRA_CA_CERTS: caFile },
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d));
    const closed = new Promise((resolve) => child.on('close', resolve));
    await Promise.race([
      new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => ((out += d), out.includes('ready\n') && resolve()))),
      closed.then(() => Promise.reject(new Error(`child exited early: ${err}`))),
    ]);
    child.stdin.write('go\n');
    const mine = await Promise.all(Array.from({ length: 25 }, () => call(tool)));
    await closed;
    const theirs = JSON.parse(out.trim().split('\n').at(-1)!) as unknown[];
    expect(mine.map((r) => r.body.output?.status)).toEqual(Array(25).fill(200));
    expect(theirs).toEqual(Array(25).fill(200));
    expect(tokenRequests()).toHaveLength(1);
    expect(apiRequests()).toHaveLength(50);
  });

  it('keeps the old refresh token when the response has none', async () => {
    provider.omitRefresh = true;
    const sec = await grant(0);
    const tool = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: sec }));
    await call(tool);
    const stored = await h.services.modules.secrets.deps.vault.open(user.id, sec, sqliteOf(h.services.store).sqlite.prepare('SELECT field, kek_id as kekId, wrapped_key as wrappedKey, ciphertext FROM secret_fields WHERE secret_id = ?').all(sec) as never);
    expect(stored.refresh_token).toBe(CANARY.refreshToken);
    expect(stored.access_token).toBe(CANARY.refreshedAccess);
  });

  it('a 401 to a token that looked valid: one refresh and one retry', async () => {
    const tool = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: await grant(3600) }));
    provider.access = 'revoked-upstream-side';
    const res = await call(tool);
    expect(res.body.output.status).toBe(200);
    expect(tokenRequests()).toHaveLength(1);
    expect(apiRequests().map((r) => r.headers.authorization)).toEqual([`Bearer ${CANARY.accessToken}`, `Bearer ${CANARY.refreshedAccess}`]);
  });

  it('a still-rejected retry is returned as the 401 output, not retried forever', async () => {
    server.handle((req, res) => {
      if (req.path === '/oauth/token') return tokenEndpoint(req, res);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"nope"}');
    });
    try {
      const tool = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: await grant(3600) }));
      const res = await call(tool);
      expect(res.body.output.status).toBe(401);
      expect(apiRequests()).toHaveLength(2);
      expect(tokenRequests()).toHaveLength(1);
    } finally {
      server.handle(providerHandler);
    }
  });

  it('invalid_grant marks the secret needs_reauthorization; calls then fail at once with a clear 409', async () => {
    provider.revoked = true;
    const sec = await grant(0);
    const tool = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: sec }));
    const first = await call(tool);
    expect(first.status).toBe(409);
    expect(first.body.description).toMatch(/needs re-authorization/);
    expect(first.body.details).toEqual({ secret_id: sec, status: 'needs_reauthorization' });
    expect((await h.call('GET', `/secrets/${sec}`, { key: user.key })).body.status).toBe('needs_reauthorization');
    const again = await call(tool);
    expect(again.status).toBe(409);
    expect(tokenRequests()).toHaveLength(1);
    expect(apiRequests()).toHaveLength(0);
    const audit = (await h.call('GET', `/audit?secret_id=${sec}`, { key: user.key })).body.events.map((e: { action: string }) => e.action);
    expect(audit).toContain('secret.needs_reauthorization');

    // Re-importing the grant into the same secret clears the state.
    provider.revoked = false;
    await importOAuth2Grant(h.services.modules.secrets.deps, {
      userId: user.id, provider: 'calendar', tokenUrl: `${server.url}/oauth/token`, clientId: 'mimic-client', clientSecret: CANARY.clientSecret,
      accessToken: CANARY.accessToken, refreshToken: CANARY.refreshToken, expiresIn: 3600, secretId: sec,
    });
    expect((await call(tool)).body.output.status).toBe(200);
  });

  it('an early refresh that fails transiently falls back to the stored token while it is still valid', async () => {
    server.handle((req, res) => {
      if (req.path === '/oauth/token') return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"temporarily_unavailable"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ seen: req.headers.authorization }));
    });
    try {
      const tool = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: await grant(30) }));
      const res = await call(tool);
      expect(res.body.output.status).toBe(200);
      expect(tokenRequests()).toHaveLength(1);
      expect(apiRequests()[0]!.headers.authorization).toBe(`Bearer ${CANARY.accessToken}`);
      // An already expired token has nothing to fall back to: the call fails clearly.
      const expired = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: await grant(0) }));
      const failed = await call(expired);
      expect(failed.status).toBe(502);
      expect(failed.body.kind).toBe('BadGatewayError');
    } finally {
      server.handle(providerHandler);
    }
  });

  it('a token endpoint refused by the egress policy fails the call with BadGatewayError, no request made', async () => {
    const sec = (await importOAuth2Grant(h.services.modules.secrets.deps, {
      userId: user.id, provider: 'evil', tokenUrl: 'https://169.254.169.254/token', clientId: 'mimic-client', clientSecret: CANARY.clientSecret,
      accessToken: CANARY.accessToken, refreshToken: CANARY.refreshToken, expiresIn: 0,
    })).id;
    const tool = await makeTool(h, user.key, toolBody(`${server.url}/events`, { secretId: sec }));
    const res = await call(tool);
    expect(res.status).toBe(502);
    expect(res.body.kind).toBe('BadGatewayError');
    expect(server.received).toHaveLength(0);
  });
});
