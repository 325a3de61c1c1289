import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { CANARY, leakedIn } from '../helpers/canaries.ts';
import { echo, makeSecret, makeTool, toolBody } from '../helpers/tools.ts';
import { importOAuth2Grant } from '../../src/secrets/oauth2-import.ts';
import { sqliteOf } from '../helpers/stores.ts';

/**
 * The leak canaries. Known credentials are planted in every kind of secret, then the whole
 * surface is exercised: CRUD, lists, tool calls against an upstream that echoes the request
 * (headers, body, and the credential in its own response headers), a refresh, validation
 * errors that carry the credential in the rejected field, and an internal fault. Every
 * response, log line, audit row and the database files are checked (the harness's close()
 * does this for every test file that uses it; this file makes sure there is something to find).
 */
let upstream: TestServer;
let h: Harness;
let user: { id: string; key: string };

beforeAll(async () => {
  upstream = await startTlsServer();
  upstream.handle((req, res) => {
    if (req.path === '/oauth/token') {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: CANARY.refreshedAccess, refresh_token: CANARY.refreshedRefresh, token_type: 'Bearer', expires_in: 3600 }));
    }
    // Echo everything, and put the credential in a response header and a nested JSON key too.
    const auth = String(req.headers.authorization ?? req.headers['x-api-key'] ?? '');
    res.writeHead(200, { 'content-type': 'application/json', 'x-debug-auth': auth, 'www-authenticate': `Bearer realm="${auth}"` });
    res.end(JSON.stringify({ echoed: { headers: req.headers, body: req.body.toString() }, [auth]: 'as a key', list: [auth, { deep: [auth] }], text: `you sent ${auth}` }));
  });
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [upstream.ca] });
  user = h.user();
});
afterAll(async () => {
  await h.close(); // throws if any canary form was seen anywhere
  await upstream.close();
});

describe('leak canaries', () => {
  it('no credential comes back from any secret endpoint, tool call, error or audit row', async () => {
    const { key } = user;
    const secrets = [
      await makeSecret(h, key, { type: 'bearer', provider: 'p', token: CANARY.bearer }),
      await makeSecret(h, key, { type: 'api_key', provider: 'p', api_key: CANARY.apiKey, header_name: 'X-Key' }),
      await makeSecret(h, key, { type: 'basic', provider: 'p', username: CANARY.basicUser, password: CANARY.basicPassword }),
      (await importOAuth2Grant(h.services.modules.secrets.deps, {
        userId: user.id, provider: 'p', tokenUrl: `${upstream.url}/oauth/token`, clientId: 'cid', clientSecret: CANARY.clientSecret,
        accessToken: CANARY.accessToken, refreshToken: CANARY.refreshToken, expiresIn: 0,
      })).id,
    ];
    const results: string[] = [];
    for (const sec of secrets) {
      for (const method of ['GET', 'POST']) {
        const tool = await makeTool(h, key, toolBody(`${upstream.url}/echo`, { secretId: sec, method }));
        const res = await h.call('POST', `/tools/${tool}/calls`, { key, body: { input: { city: 'Oslo' } } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        results.push(JSON.stringify(res.body));
        await h.call('GET', `/tools/${tool}`, { key });
      }
      await h.call('GET', `/secrets/${sec}`, { key });
    }
    await h.call('GET', '/secrets', { key });
    await h.call('GET', '/tools', { key });
    await h.call('GET', '/audit?limit=100', { key });
    await h.call('PUT', `/secrets/${secrets[0]}`, { key, body: { token: CANARY.rotatedBearer } });

    // Rejected values are not echoed in errors.
    await h.call('POST', '/secrets', { key, body: { type: 'bearer', provider: 'p', token: `${CANARY.bearer}\n` } });
    await h.call('POST', '/secrets', { key, body: { type: 'basic', provider: 'p', username: `${CANARY.basicUser}:x`, password: CANARY.basicPassword } });
    await h.call('POST', '/secrets', { key, body: { type: 'bearer', provider: 'p', token: CANARY.bearer, extra: CANARY.bearer } });
    await h.call('PUT', `/secrets/${secrets[1]}`, { key, body: { api_key: CANARY.apiKey, header_name: 'Host' } });
    await h.call('POST', '/secrets', { key, raw: `{"type":"bearer","token":"${CANARY.bearer}"`, headers: { 'content-type': 'application/json' } });

    // An internal fault while the credential is being used: a generic 500, nothing else.
    sqliteOf(h.services.store).sqlite.prepare("UPDATE secret_fields SET ciphertext = 'x' || substr(ciphertext, 2) WHERE secret_id = ?").run(secrets[2]);
    const broken = await makeTool(h, key, toolBody(`${upstream.url}/echo`, { secretId: secrets[2] }));
    const fault = await h.call('POST', `/tools/${broken}/calls`, { key, body: { input: { city: 'Oslo' } } });
    expect(fault.status).toBe(500);
    expect(Object.keys(fault.body).sort()).toEqual(['description', 'details', 'kind']);

    // The upstream did receive the credentials (so the canaries were really in play) ...
    const sent = JSON.stringify(upstream.received.map((r) => r.headers));
    expect(leakedIn(sent).length).toBeGreaterThanOrEqual(4);
    // ... and the tool results carry the mask instead.
    for (const r of results) {
      expect(leakedIn(r)).toEqual([]);
      expect(r).toContain('•••••••••');
    }
    expect(leakedIn([...h.seen, ...h.logs].join('\n'))).toEqual([]);
    const audit = JSON.stringify(sqliteOf(h.services.store).sqlite.prepare('SELECT * FROM audit_events').all());
    expect(leakedIn(audit)).toEqual([]);
    expect(audit).toContain('secret.used');
  });

  it('the check itself fires: a canary in a log line fails the harness close', async () => {
    const probe = harness();
    probe.logs.push(`oops ${CANARY.apiKey}`);
    await expect(probe.close()).rejects.toThrow(/leak canary/);
  });
});
