import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { CANARY } from '../helpers/canaries.ts';
import { echo, makeSecret, makeTool, toolBody } from '../helpers/tools.ts';

const MASK = '•••••••••';
let upstream: TestServer;
let h: Harness;
let key: string;

beforeAll(async () => {
  upstream = await startTlsServer(echo);
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [upstream.ca] });
  key = h.user().key;
});
afterAll(async () => {
  await h.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
  upstream.handle(echo);
});

const call = (toolId: string, input: unknown) => h.call('POST', `/tools/${toolId}/calls`, { key, body: { input } });
const lastHeaders = () => upstream.received.at(-1)!.headers;

describe('the auth header of each secret type, as the spec table says', () => {
  it('bearer: Authorization: Bearer <token>', async () => {
    const sec = await makeSecret(h, key, { type: 'bearer', provider: 'weather', token: CANARY.bearer });
    const tool = await makeTool(h, key, toolBody(`${upstream.url}/weather`, { secretId: sec }));
    const res = await call(tool, { city: 'Oslo' });
    expect(res.status).toBe(200);
    expect(lastHeaders().authorization).toBe(`Bearer ${CANARY.bearer}`);
    expect(lastHeaders()['x-api-key']).toBeUndefined();
  });

  it('api_key: X-API-Key by default, and the header_name when given', async () => {
    const plain = await makeSecret(h, key, { type: 'api_key', provider: 'weather', api_key: CANARY.apiKey });
    await call(await makeTool(h, key, toolBody(`${upstream.url}/w`, { secretId: plain })), { city: 'Oslo' });
    expect(lastHeaders()['x-api-key']).toBe(CANARY.apiKey);
    expect(lastHeaders().authorization).toBeUndefined();

    const named = await makeSecret(h, key, { type: 'api_key', provider: 'weather', api_key: CANARY.apiKey, header_name: 'X-Weather-Key' });
    expect((await h.call('GET', `/secrets/${named}`, { key })).body.header_name).toBe('X-Weather-Key');
    await call(await makeTool(h, key, toolBody(`${upstream.url}/w`, { secretId: named })), { city: 'Oslo' });
    expect(lastHeaders()['x-weather-key']).toBe(CANARY.apiKey);
    expect(lastHeaders()['x-api-key']).toBeUndefined();
  });

  it('basic: Authorization: Basic base64(username:password)', async () => {
    const sec = await makeSecret(h, key, { type: 'basic', provider: 'weather', username: CANARY.basicUser, password: CANARY.basicPassword });
    await call(await makeTool(h, key, toolBody(`${upstream.url}/w`, { secretId: sec })), { city: 'Oslo' });
    expect(lastHeaders().authorization).toBe(`Basic ${Buffer.from(`${CANARY.basicUser}:${CANARY.basicPassword}`).toString('base64')}`);
  });

  it('no auth: no auth header at all', async () => {
    await call(await makeTool(h, key, toolBody(`${upstream.url}/w`)), { city: 'Oslo' });
    expect(lastHeaders().authorization).toBeUndefined();
    expect(lastHeaders()['x-api-key']).toBeUndefined();
  });
});

describe('a call', () => {
  it('answers {call_id, tool_id, name, input, output, duration_ms} with the upstream status and parsed body, echoed credentials masked', async () => {
    const sec = await makeSecret(h, key, { type: 'bearer', provider: 'weather', token: CANARY.bearer });
    const tool = await makeTool(h, key, toolBody(`${upstream.url}/weather`, { secretId: sec }));
    const res = await call(tool, { city: 'Oslo', units: 'metric' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['call_id', 'duration_ms', 'input', 'name', 'output', 'tool_id']);
    expect(res.body).toMatchObject({ tool_id: tool, name: 'get_weather', input: { city: 'Oslo', units: 'metric' } });
    expect(res.body.call_id).toMatch(/^call_/);
    expect(res.body.duration_ms).toBeGreaterThanOrEqual(0);
    expect(res.body.output.status).toBe(200);
    expect(res.body.output.body.method).toBe('GET');
    expect(res.body.output.body.path).toBe('/weather?city=Oslo&units=metric');
    expect(res.body.output.body.headers.authorization).toBe(MASK);
    expect(res.body.output.headers['x-echo-auth']).toBe(MASK);
    expect(JSON.stringify(res.body)).not.toContain(CANARY.bearer);
  });

  it('fills URL placeholders (encoded) and sends the rest as the query for GET and DELETE', async () => {
    const body = toolBody(`${upstream.url}/cities/{city}/forecast`, { method: 'DELETE' });
    const tool = await makeTool(h, key, body);
    await call(tool, { city: 'São Paulo/../x?y', days: 3 });
    expect(upstream.received.at(-1)).toMatchObject({ method: 'DELETE', path: '/cities/S%C3%A3o%20Paulo%2F..%2Fx%3Fy/forecast?days=3' });
  });

  it('sends the rest as a JSON body for POST, PUT and PATCH', async () => {
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const tool = await makeTool(h, key, toolBody(`${upstream.url}/cities/{city}`, { method }));
      await call(tool, { city: 'Oslo', units: 'imperial', days: 2 });
      const got = upstream.received.at(-1)!;
      expect(got.method).toBe(method);
      expect(got.path).toBe('/cities/Oslo');
      expect(got.headers['content-type']).toBe('application/json');
      expect(JSON.parse(got.body.toString())).toEqual({ units: 'imperial', days: 2 });
    }
  });

  it('refuses input that breaks the schema with ValidationError and the schema errors, sending nothing', async () => {
    const tool = await makeTool(h, key, toolBody(`${upstream.url}/w`));
    for (const input of [{}, { city: 5 }, { city: 'Oslo', units: 'kelvin' }, { city: 'Oslo', extra: true }, { city: 'Oslo', days: 0.5 }]) {
      const res = await call(tool, input);
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(res.body.kind).toBe('ValidationError');
      expect(res.body.details.length).toBeGreaterThan(0);
      expect(res.body.details[0].field).toMatch(/^input/);
    }
    const notObject = await h.call('POST', `/tools/${tool}/calls`, { key, body: { input: 'Oslo' } });
    expect(notObject.status).toBe(400);
    expect(notObject.body.kind).toBe('ValidationError');
    expect(upstream.received).toHaveLength(0);
  });

  it('passes upstream errors through as output and text bodies as text', async () => {
    upstream.handle((_req, res) => void res.writeHead(503, { 'content-type': 'text/plain', 'set-cookie': 'session=abc' }).end('try later'));
    const res = await call(await makeTool(h, key, toolBody(`${upstream.url}/w`)), { city: 'Oslo' });
    expect(res.status).toBe(200);
    expect(res.body.output).toMatchObject({ status: 503, body: 'try later' });
    expect(res.body.output.headers['set-cookie']).toBeUndefined();
  });

  it('does not follow redirects: the 3xx is the output', async () => {
    upstream.handle((_req, res) => void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end());
    const res = await call(await makeTool(h, key, toolBody(`${upstream.url}/w`)), { city: 'Oslo' });
    expect(res.body.output.status).toBe(302);
    expect(upstream.received).toHaveLength(1);
  });

  it('times out a slow upstream with GatewayTimeoutError and caps large responses with BadGatewayError', async () => {
    upstream.handle(() => undefined);
    const slow = await makeTool(h, key, { ...toolBody(`${upstream.url}/w`), config: { type: 'server', url: `${upstream.url}/w`, method: 'GET', timeout_ms: 200 } });
    const res = await call(slow, { city: 'Oslo' });
    expect(res.status).toBe(504);
    expect(res.body.kind).toBe('GatewayTimeoutError');
    upstream.handle((_req, r) => void r.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(2 * 1024 * 1024)));
    const big = await call(await makeTool(h, key, toolBody(`${upstream.url}/w`)), { city: 'Oslo' });
    expect(big.status).toBe(502);
    expect(big.body.kind).toBe('BadGatewayError');
  });

  it('refuses to run a client tool on the server', async () => {
    const tool = await makeTool(h, key, { ...toolBody('https://unused.example/x'), config: { type: 'client' } });
    const res = await call(tool, { city: 'Oslo' });
    expect(res.status).toBe(400);
    expect(res.body.description).toMatch(/client tool/);
  });
});

describe('changing credentials', () => {
  it('PUT /secrets/{id} is used by the next call', async () => {
    const sec = await makeSecret(h, key, { type: 'bearer', provider: 'weather', token: CANARY.bearer });
    const tool = await makeTool(h, key, toolBody(`${upstream.url}/w`, { secretId: sec }));
    await call(tool, { city: 'Oslo' });
    expect(lastHeaders().authorization).toBe(`Bearer ${CANARY.bearer}`);
    const put = await h.call('PUT', `/secrets/${sec}`, { key, body: { token: CANARY.rotatedBearer } });
    expect(put.status).toBe(200);
    expect(put.body.sanitized_secret).toBe(MASK);
    await call(tool, { city: 'Oslo' });
    expect(lastHeaders().authorization).toBe(`Bearer ${CANARY.rotatedBearer}`);
  });

  it('PUT /secrets/{id} may change the type, with every field of the new type', async () => {
    const sec = await makeSecret(h, key, { type: 'bearer', provider: 'weather', token: CANARY.bearer });
    const tool = await makeTool(h, key, toolBody(`${upstream.url}/w`, { secretId: sec }));
    const incomplete = await h.call('PUT', `/secrets/${sec}`, { key, body: { type: 'basic', username: CANARY.basicUser } });
    expect(incomplete.status).toBe(400);
    const ok = await h.call('PUT', `/secrets/${sec}`, { key, body: { type: 'api_key', api_key: CANARY.apiKey } });
    expect(ok.body).toMatchObject({ type: 'api_key', header_name: 'X-API-Key' });
    await call(tool, { city: 'Oslo' });
    expect(lastHeaders()['x-api-key']).toBe(CANARY.apiKey);
    expect(lastHeaders().authorization).toBeUndefined();
  });

  it('PUT /tools/{id} with another auth.secret_id swaps the secret; without auth, no header', async () => {
    const a = await makeSecret(h, key, { type: 'bearer', provider: 'a', token: CANARY.bearer });
    const b = await makeSecret(h, key, { type: 'api_key', provider: 'b', api_key: CANARY.apiKey });
    const tool = await makeTool(h, key, toolBody(`${upstream.url}/w`, { secretId: a }));
    const put = await h.call('PUT', `/tools/${tool}`, { key, body: toolBody(`${upstream.url}/w`, { secretId: b }) });
    expect(put.status).toBe(200);
    expect(put.body.auth).toEqual({ secret_id: b });
    await call(tool, { city: 'Oslo' });
    expect(lastHeaders()['x-api-key']).toBe(CANARY.apiKey);
    expect(lastHeaders().authorization).toBeUndefined();
    await h.call('PUT', `/tools/${tool}`, { key, body: toolBody(`${upstream.url}/w`) });
    await call(tool, { city: 'Oslo' });
    expect(lastHeaders()['x-api-key']).toBeUndefined();
    // a is free now; b is not.
    expect((await h.call('DELETE', `/secrets/${a}`, { key })).status).toBe(200);
  });
});
