import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import type { AppEnv } from '../../src/http/env.ts';
import { webhookRoutes } from '../../src/webhooks/routes.ts';
import { mountRoutes } from '../../src/http/mount.ts';
import { createOutboxStore } from '../../src/webhooks/outbox-store.ts';
import { createWebhookSecrets } from '../../src/webhooks/secrets.ts';
import { createSqliteWebhookSecretStore } from '../../src/webhooks/secrets-store.ts';
import { enqueueWebhook } from '../../src/webhooks/outbox.ts';
import { addUser, openTestStore, type TestStore } from './db.ts';

let store: TestStore;
let now: number;
let app: Hono<AppEnv>;

/** A stand-in for the lead's auth middleware and error boundary. */
function buildApp(): Hono<AppEnv> {
  const root = new Hono<AppEnv>();
  root.use(async (c, next) => {
    c.set('user', { id: c.req.header('x-user') ?? 'usr_a', name: null, permissions: [] });
    await next();
  });
  root.onError((err, c) => (err instanceof ApiError ? c.json({ kind: err.kind, description: err.description }, err.status as 400) : c.json({ kind: 'InternalServerError' }, 500)));
  const secrets = createWebhookSecrets({ store: createSqliteWebhookSecretStore(store.db), clock: { now: () => now }, masterKey: Buffer.alloc(32, 1) });
  return mountRoutes(root, webhookRoutes({ outbox: createOutboxStore(store), secrets }));
}

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, any> });
const as = async (user: string, path: string, init: RequestInit = {}) => json(await app.request(path, { ...init, headers: { 'x-user': user } }));

beforeEach(async () => {
  store = await openTestStore(join(mkdtempSync(join(tmpdir(), 'mimic-wh-')), 'db.sqlite'));
  addUser(store, 'usr_a');
  addUser(store, 'usr_b');
  now = Date.UTC(2026, 5, 1);
  app = buildApp();
});

describe('signing secret routes', () => {
  it("shows the caller's own secret, stable, different per user", async () => {
    const a = await as('usr_a', '/webhooks/secret');
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ secret: expect.stringMatching(/^whsec_/), created_at: '2026-06-01T00:00:00.000Z', previous_expires_at: null });
    expect((await as('usr_a', '/webhooks/secret')).body.secret).toBe(a.body.secret);
    expect((await as('usr_b', '/webhooks/secret')).body.secret).not.toBe(a.body.secret);
  });

  it('rotation returns a new secret and when the old one stops signing', async () => {
    const before = (await as('usr_a', '/webhooks/secret')).body.secret;
    now += 60_000;
    const rotated = await as('usr_a', '/webhooks/secret/rotate', { method: 'POST' });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(before);
    expect(rotated.body).toMatchObject({ created_at: '2026-06-01T00:01:00.000Z', previous_expires_at: '2026-06-02T00:01:00.000Z' });
    expect((await as('usr_a', '/webhooks/secret')).body.secret).toBe(rotated.body.secret);
  });
});

describe('GET /webhooks/messages', () => {
  const seed = () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(enqueueWebhook(store.db, { userId: 'usr_a', event: 'animation.done', resourceId: i % 2 ? 'anm_odd' : 'anm_even', url: 'https://hooks.example/a', now: now + i }));
    }
    enqueueWebhook(store.db, { userId: 'usr_b', event: 'animation.done', resourceId: 'anm_even', url: 'https://hooks.example/b', now });
    return ids;
  };

  it("pages through the caller's messages newest first", async () => {
    const ids = seed();
    const first = await as('usr_a', '/webhooks/messages?limit=2');
    expect(first.body.messages.map((m: { id: string }) => m.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.messages[0]).toMatchObject({
      event: 'animation.done',
      resource_id: 'anm_even',
      url: 'https://hooks.example/a',
      status: 'pending',
      attempts: 0,
      last_status: null,
      delivered_at: null,
      attempts_log: [],
    });
    const second = await as('usr_a', `/webhooks/messages?limit=2&token=${first.body.token}`);
    expect(second.body.messages.map((m: { id: string }) => m.id)).toEqual([ids[2], ids[1]]);
    const third = await as('usr_a', `/webhooks/messages?limit=2&token=${second.body.token}`);
    expect(third.body.messages.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
    expect(third.body.token).toBeUndefined();
  });

  it('filters by resource and never shows other users', async () => {
    seed();
    const odd = await as('usr_a', '/webhooks/messages?resource_id=anm_odd');
    expect(odd.body.messages).toHaveLength(2);
    const b = await as('usr_b', '/webhooks/messages');
    expect(b.body.messages.map((m: { url: string }) => m.url)).toEqual(['https://hooks.example/b']);
  });

  it('rejects bad limits and tokens', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'token=nope', `token=${Buffer.from('[1]').toString('base64url')}`]) {
      const res = await as('usr_a', `/webhooks/messages?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.kind).toBe('BadRequestError');
    }
  });
});
