import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness, userDeps, type Harness } from '../helpers/harness.ts';
import { createKey, getUser } from '../../src/users/accounts.ts';
import { ConfigurationError, loadConfig } from '../../src/config.ts';

// Each key may send 3 requests per window of 3 / 1 = 3 seconds.
const BURST = 3;
let h: Harness;
beforeAll(() => {
  h = harness({ MIMIC_RATE_LIMIT: '1', MIMIC_RATE_LIMIT_BURST: String(BURST) });
});
afterAll(() => h.close());

// The limiter's windows run on Date.now() and setTimeout: the tests move that clock by hand,
// so no assertion depends on how fast this machine is.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: new Date('2026-01-01T00:00:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

const list = (key: string) => h.call('GET', '/animations', { key });

async function spend(key: string): Promise<void> {
  for (let i = 0; i < BURST; i++) expect((await list(key)).status).toBe(200);
}

describe('rate limiting per API key', () => {
  it('counts down in RateLimit-* headers on successful responses', async () => {
    const { key } = h.user();
    for (let remaining = BURST - 1; remaining >= 0; remaining--) {
      const res = await list(key);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(BURST));
      expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(3);
      expect(res.headers.get('retry-after')).toBeNull();
    }
  });

  it('answers 429 TooManyRequestsError with Retry-After once the allowance is spent', async () => {
    const { key } = h.user();
    await spend(key);
    const res = await list(key);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ kind: 'TooManyRequestsError', description: expect.any(String), details: { retry_after_seconds: 3 } });
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.headers.get('ratelimit-limit')).toBe(String(BURST));
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(res.headers.get('ratelimit-reset')).toBe('3');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.description).not.toContain(key.slice(12));
  });

  it('refuses before the handler runs: a limited POST charges no credit', async () => {
    const { id, key } = h.user({ credits: 5 });
    await spend(key);
    const res = await h.call('POST', '/animations', { key, body: { source_url: 'https://example.com/a.jpg' } });
    expect(res.status).toBe(429);
    expect((await getUser(userDeps(h.services), id))?.credits).toBe(5);
  });

  it('gives the allowance back when the window has passed', async () => {
    const { key } = h.user();
    await spend(key);
    const refused = await list(key);
    expect(refused.status).toBe(429);
    vi.advanceTimersByTime(Number(refused.headers.get('retry-after')) * 1000 - 500);
    expect((await list(key)).status).toBe(429);
    vi.advanceTimersByTime(500);
    const res = await list(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-remaining')).toBe(String(BURST - 1));
  });

  it('limits each key on its own: another key of the same user, and other users, are unaffected', async () => {
    const { id, key } = h.user();
    const second = await createKey(userDeps(h.services), id);
    const other = h.user();
    await spend(key);
    expect((await list(key)).status).toBe(429);
    const res = await list(second!.apiKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-remaining')).toBe(String(BURST - 1));
    expect((await list(other.key)).status).toBe(200);
  });

  it('never limits public paths or requests without a valid key', async () => {
    const { key } = h.user();
    await spend(key);
    for (let i = 0; i < BURST * 3; i++) {
      for (const path of ['/health', '/openapi.json', '/docs']) {
        // A spent key sent to a public path changes nothing either.
        const res = await h.call('GET', path, i % 2 ? { key } : {});
        expect(res.status, path).toBe(200);
        expect(res.headers.get('ratelimit-limit'), path).toBeNull();
      }
      const anonymous = await h.call('GET', '/animations');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('ratelimit-limit')).toBeNull();
      expect((await h.call('GET', '/animations', { key: `mimic_${'A'.repeat(43)}` })).status).toBe(401);
    }
  });

  it('documents 429 on authenticated operations only', async () => {
    const doc = (await h.call('GET', '/openapi.json')).body;
    expect(doc.paths['/animations'].get.responses['429'].description).toBe('TooManyRequestsError');
    expect(doc.paths['/health'].get.responses['429']).toBeUndefined();
  });
});

describe('MIMIC_RATE_LIMIT=0', () => {
  it('turns the limit off', async () => {
    const off = harness({ MIMIC_RATE_LIMIT: '0' });
    try {
      const { key } = off.user();
      for (let i = 0; i < 20; i++) {
        const res = await off.call('GET', '/animations', { key });
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBeNull();
      }
    } finally {
      vi.useRealTimers();
      await off.close();
    }
  });
});

describe('rate-limit settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mimic-rate-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const load = (env: Record<string, string>) => loadConfig({ MIMIC_DATA_DIR: dir, ...env });

  it('defaults to 50 requests per second per key, in bursts of 100', () => {
    expect(load({}).rateLimit).toEqual({ perSecond: 50, burst: 100 });
  });

  it('takes both from the environment; the burst defaults to twice the rate', () => {
    expect(load({ MIMIC_RATE_LIMIT: '1000', MIMIC_RATE_LIMIT_BURST: '5' }).rateLimit).toEqual({ perSecond: 1000, burst: 5 });
    expect(load({ MIMIC_RATE_LIMIT: '7' }).rateLimit).toEqual({ perSecond: 7, burst: 14 });
    expect(load({ MIMIC_RATE_LIMIT: '0' }).rateLimit).toBeNull();
  });

  it('limits a client key as a whole at ten times the per-key rate unless told, and not at all when limiting is off', () => {
    expect(load({}).clientKeyRateLimit).toEqual({ perSecond: 500, burst: 1000 });
    expect(load({ MIMIC_RATE_LIMIT: '7' }).clientKeyRateLimit).toEqual({ perSecond: 70, burst: 140 });
    expect(load({ MIMIC_CLIENT_KEY_RATE_LIMIT: '3' }).clientKeyRateLimit).toEqual({ perSecond: 3, burst: 6 });
    expect(load({ MIMIC_CLIENT_KEY_RATE_LIMIT: '0' }).clientKeyRateLimit).toBeNull();
    expect(load({ MIMIC_RATE_LIMIT: '0', MIMIC_CLIENT_KEY_RATE_LIMIT: '3' }).clientKeyRateLimit).toBeNull();
  });

  it.each([
    ['MIMIC_RATE_LIMIT', '-1'],
    ['MIMIC_RATE_LIMIT', '2.5'],
    ['MIMIC_RATE_LIMIT', 'fast'],
    ['MIMIC_RATE_LIMIT_BURST', '0'],
    ['MIMIC_RATE_LIMIT_BURST', 'many'],
  ])('refuses %s=%s with a clear message', (name, value) => {
    expect(() => load({ [name]: value })).toThrow(ConfigurationError);
    expect(() => load({ [name]: value })).toThrow(new RegExp(`^${name} must be an integer`));
  });
});
