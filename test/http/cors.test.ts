import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { loadConfig, ConfigurationError } from '../../src/config.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ORIGIN = 'https://app.example.com';

describe('CORS for browser pages on allowed origins (MIMIC_CORS_ORIGINS)', () => {
  let h: Harness;
  beforeAll(() => {
    h = harness({ MIMIC_CORS_ORIGINS: `${ORIGIN}, http://localhost:5173` });
  });
  afterAll(() => h.close());

  it('answers a preflight without a key, naming the methods and headers a client needs', async () => {
    const res = await h.call('OPTIONS', '/clips', {
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toMatch(/DELETE/);
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('lets an allowed origin read answers and errors, with the rate-limit headers exposed', async () => {
    const { key } = h.user();
    const ok = await h.call('GET', '/clips', { key, headers: { origin: ORIGIN } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/RateLimit-Remaining/);
    const unauthorized = await h.call('GET', '/clips', { headers: { origin: ORIGIN } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const bad = await h.call('POST', '/clips', { key, headers: { origin: ORIGIN }, body: { script: { type: 'text', input: 'hi' } } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('does not name another origin', async () => {
    const res = await h.call('OPTIONS', '/clips', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const { key } = h.user();
    const get = await h.call('GET', '/clips', { key, headers: { origin: 'https://evil.example' } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('without MIMIC_CORS_ORIGINS', () => {
  let h: Harness;
  beforeAll(() => {
    h = harness();
  });
  afterAll(() => h.close());

  it('sends no CORS headers: no page on another origin can read the API', async () => {
    const { key } = h.user();
    const res = await h.call('GET', '/clips', { key, headers: { origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('MIMIC_CORS_ORIGINS settings', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'mimic-cors-'));
  it.each(['https://app.example.com/', 'app.example.com', 'ftp://x.example', 'https://app.example.com/path'])('refuses %s', (value) => {
    expect(() => loadConfig({ MIMIC_DATA_DIR: dir(), MIMIC_CORS_ORIGINS: value })).toThrow(ConfigurationError);
  });
  it('takes * and lists', () => {
    expect(loadConfig({ MIMIC_DATA_DIR: dir(), MIMIC_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    expect(loadConfig({ MIMIC_DATA_DIR: dir(), MIMIC_CORS_ORIGINS: 'https://a.example, http://localhost:3000' }).corsOrigins).toEqual(['https://a.example', 'http://localhost:3000']);
  });
});
