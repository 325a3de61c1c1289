import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { CANARY } from '../helpers/canaries.ts';
import { echo, makeSecret, makeTool } from '../helpers/tools.ts';

/**
 * Tool calls go through the guarded client: a table of address vectors is refused before any
 * connection, and a real loopback server reached under another host name is refused unless
 * that name is allowed, and then lands on the checked address (the connection is pinned).
 */
let upstream: TestServer;
let h: Harness;
let key: string;

// Every name resolves through the test's resolver; `pinned.test` → the loopback server.
const names: Record<string, string[]> = {
  localhost: ['127.0.0.1', '::1'],
  'pinned.test': ['127.0.0.1'],
  'rebind.test': ['127.0.0.1'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
};

beforeAll(async () => {
  upstream = await startTlsServer(echo);
  h = harness(
    { MIMIC_EGRESS_ALLOW: 'pinned.test' },
    { ca: [upstream.ca], resolve: async (host) => names[host] ?? (() => { throw new Error('ENOTFOUND'); })() },
  );
  key = h.user().key;
});
afterAll(async () => {
  await h.close();
  await upstream.close();
});

const params = { type: 'object', properties: { q: { type: 'string' } } };
async function callUrl(url: string, secretId?: string) {
  const tool = await makeTool(h, key, {
    name: 'probe', description: 'probe', provider: 'p', schema: { parameters: params },
    config: { type: 'server', url, method: 'GET' }, ...(secretId ? { auth: { secret_id: secretId } } : {}),
  });
  return h.call('POST', `/tools/${tool}/calls`, { key, body: { input: { q: 'x' } } });
}

describe('egress guard on tool calls', () => {
  const port = () => upstream.port;
  it.each([
    ['loopback IPv4', () => `https://127.0.0.1:${port()}/x`],
    ['loopback by name', () => `https://localhost:${port()}/x`],
    ['unspecified', () => `http://0.0.0.0:${port()}/x`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data'],
    ['10/8', () => 'http://10.0.0.1/x'],
    ['172.16/12', () => 'http://172.16.5.4/x'],
    ['192.168/16', () => 'http://192.168.1.1/x'],
    ['CGNAT 100.64/10', () => 'http://100.64.0.1/x'],
    ['IPv6 loopback', () => `http://[::1]:${port()}/x`],
    ['IPv6 unspecified', () => 'http://[::]/x'],
    ['IPv4-mapped IPv6', () => `http://[::ffff:7f00:1]:${port()}/x`],
    ['IPv4-compatible IPv6', () => `http://[::7f00:1]:${port()}/x`],
    ['NAT64', () => 'http://[64:ff9b::7f00:1]/x'],
    ['6to4', () => 'http://[2002:7f00:1::]/x'],
    ['unique local fc00::/7', () => 'http://[fd00::1]/x'],
    ['link-local fe80::/10', () => 'http://[fe80::1]/x'],
    ['decimal IPv4', () => `http://2130706433:${port()}/x`],
    ['octal IPv4', () => `http://0177.0.0.1:${port()}/x`],
    ['hex IPv4', () => `http://0x7f.0.0.1:${port()}/x`],
    ['trailing-dot name', () => `https://localhost.:${port()}/x`],
    ['a name resolving to metadata', () => 'http://metadata.test/x'],
    ['a name resolving to public and loopback', () => 'http://mixed.test/x'],
  ])('refuses %s without connecting', async (_what, url) => {
    const before = upstream.received.length;
    const res = await callUrl(url());
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('BadRequestError');
    expect(res.body.details.reason).toBe('refused_address');
    expect(upstream.received.length).toBe(before);
  });

  it('refuses user:pass@ URLs at create time', async () => {
    const res = await h.call('POST', '/tools', {
      key,
      body: { name: 'x', description: 'x', provider: 'p', schema: { parameters: params }, config: { type: 'server', url: 'https://u:p@api.example.com/x', method: 'GET' } },
    });
    expect(res.status).toBe(400);
  });

  it('reaches a loopback server under an allowed name, pinned to the checked address, with the secret attached', async () => {
    const sec = await makeSecret(h, key, { type: 'bearer', provider: 'p', token: CANARY.bearer });
    const res = await callUrl(`https://pinned.test:${port()}/pinned`, sec);
    expect(res.status).toBe(200);
    expect(res.body.output.body.headers.host).toBe(`pinned.test:${port()}`);
    expect(upstream.received.at(-1)!.headers.authorization).toBe(`Bearer ${CANARY.bearer}`);
  });

  it('refuses the same server under a name that is not allowed (DNS pointing at loopback)', async () => {
    const before = upstream.received.length;
    const res = await callUrl(`https://rebind.test:${port()}/x`);
    expect(res.status).toBe(400);
    expect(res.body.details.reason).toBe('refused_address');
    expect(upstream.received.length).toBe(before);
  });

  it('refuses a tool with auth on plain http at create time', async () => {
    const sec = await makeSecret(h, key, { type: 'bearer', provider: 'p', token: CANARY.bearer });
    const res = await h.call('POST', '/tools', {
      key,
      body: { name: 'x', description: 'x', provider: 'p', schema: { parameters: params }, config: { type: 'server', url: 'http://api.example.com/x', method: 'GET' }, auth: { secret_id: sec } },
    });
    expect(res.status).toBe(400);
    expect(res.body.description).toMatch(/https/);
  });
});
