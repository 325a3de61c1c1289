import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGuardedClient, type GuardedClient } from '../../src/egress/client.ts';
import { webhookAttempts, webhookMessages } from '../../src/db/schema/webhooks.ts';
import { createWebhookDispatcher, type WebhookDispatcherDeps } from '../../src/webhooks/dispatcher.ts';
import { enqueueWebhook, listDeliveries } from '../../src/webhooks/outbox.ts';
import { createWebhookSecrets } from '../../src/webhooks/secrets.ts';
import { createSqliteWebhookSecretStore } from '../../src/webhooks/secrets-store.ts';
import { signPayload } from '../../src/webhooks/signing.ts';
import { silentLogger } from '../../src/log.ts';
import { startTlsServer, type ReceivedRequest, type TestServer } from '../helpers/tls.ts';
import { addUser, asDatabase, openTestStore, type TestStore } from './db.ts';

const MASTER = Buffer.alloc(32, 5);
const SCHEDULE = [1000, 5000];
let receiver: TestServer;
let client: GuardedClient;
let file: string;
let store: TestStore;
let now: number;
const clock = { now: () => now };
let bodies: number;

const reply = (status: number, headers: Record<string, string> = {}) => (_req: ReceivedRequest, res: import('node:http').ServerResponse) =>
  void res.writeHead(status, headers).end('');

beforeAll(async () => {
  receiver = await startTlsServer();
  client = createGuardedClient({ allow: ['localhost'], ca: [receiver.ca], defaultTimeoutMs: 2000, defaultMaxBytes: 1 << 20 });
});
afterAll(async () => {
  await client.close();
  await receiver.close();
});
beforeEach(async () => {
  file = join(mkdtempSync(join(tmpdir(), 'mimic-wh-')), 'db.sqlite');
  store = await openTestStore(file);
  addUser(store, 'usr_a');
  now = Date.now();
  bodies = 0;
  receiver.received.length = 0;
  receiver.handle(reply(200));
});
afterEach(() => store.close());

function dispatcher(overrides: Partial<WebhookDispatcherDeps> = {}) {
  return createWebhookDispatcher({
    store: asDatabase(store),
    client,
    clock,
    masterKey: MASTER,
    schedule: SCHEDULE,
    timeoutMs: 30_000, // a send on a loaded machine is slow, not a timeout (the timeout test sets its own)
    pollMs: 20,
    log: silentLogger,
    random: () => 0.5,
    bodies: { animation: async (resourceId, _userId, event) => ({ type: event, data: { id: resourceId, result_url: `https://cdn.example/r?signature=fresh${++bodies}` } }) },
    ...overrides,
  });
}

const enqueue = (url = `${receiver.url}/hooks?token=SECRET-TOKEN`) =>
  enqueueWebhook(store.db, { userId: 'usr_a', event: 'animation.done', resourceId: 'anm_1', url, now });
const message = (id: string) => store.db.select().from(webhookMessages).where(eq(webhookMessages.id, id)).get()!;
const attempts = (id: string) => store.db.select().from(webhookAttempts).where(eq(webhookAttempts.messageId, id)).all();
const secretOf = async () => (await createWebhookSecrets({ store: createSqliteWebhookSecretStore(store.db), clock, masterKey: MASTER }).getOrCreateSigningSecret('usr_a')).secret;
const headersOf = (r: ReceivedRequest) => r.headers as Record<string, string>;

describe('delivery', () => {
  it('POSTs a signed JSON body over https that standardwebhooks verifies', async () => {
    const id = enqueue();
    expect(await dispatcher().runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const req = receiver.received[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/hooks?token=SECRET-TOKEN');
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'mimic-webhooks/0.1',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now / 1000)),
    });
    expect(new Webhook(await secretOf()).verify(req.body.toString(), headersOf(req))).toEqual({
      type: 'animation.done',
      data: { id: 'anm_1', result_url: 'https://cdn.example/r?signature=fresh1' },
    });
    expect(message(id)).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200, deliveredAt: now, leaseUntil: null });
    expect(attempts(id)).toMatchObject([{ attempt: 1, statusCode: 200, outcome: 'success', error: null }]);
    // Delivered messages are not sent again.
    now += 60_000;
    expect(await dispatcher().runOnce()).toBe(0);
  });

  it('retries after a 500 on schedule with the same webhook-id and a fresh body', async () => {
    const id = enqueue();
    receiver.handle(reply(500));
    await dispatcher().runOnce();
    expect(message(id)).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 500, lastError: 'HTTP 500', nextAttemptAt: now + 1000 });
    // Not due yet.
    expect(await dispatcher().runOnce()).toBe(0);
    now += 1000;
    receiver.handle(reply(204));
    expect(await dispatcher().runOnce()).toBe(1);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    expect(JSON.parse(receiver.received[1]!.body.toString()).data.result_url).toMatch(/fresh2$/);
    expect(new Webhook(await secretOf()).verify(receiver.received[1]!.body.toString(), headersOf(receiver.received[1]!))).toBeTruthy();
    expect(message(id)).toMatchObject({ status: 'delivered', attempts: 2, lastStatus: 204 });
    expect(attempts(id).map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([
      [1, 500, 'failure'],
      [2, 204, 'success'],
    ]);
  });

  it('applies ±20% jitter to the schedule', async () => {
    const low = enqueue();
    receiver.handle(reply(500));
    await dispatcher({ random: () => 0 }).runOnce();
    expect(message(low).nextAttemptAt).toBe(now + 800);
    const high = enqueue();
    await dispatcher({ random: () => 0.999999 }).runOnce();
    expect(message(high).nextAttemptAt - now).toBeGreaterThan(1199);
    expect(message(high).nextAttemptAt - now).toBeLessThanOrEqual(1200);
  });

  it('3xx is a failure and the redirect is not followed', async () => {
    const id = enqueue();
    receiver.handle(reply(301, { location: 'https://localhost:1/elsewhere' }));
    await dispatcher().runOnce();
    expect(receiver.received).toHaveLength(1);
    expect(message(id)).toMatchObject({ status: 'pending', lastStatus: 301 });
    expect(message(id).lastError).toMatch(/redirects are not followed/);
  });

  it('410 Gone disables the message: no more retries', async () => {
    const id = enqueue();
    receiver.handle(reply(410));
    await dispatcher().runOnce();
    expect(message(id)).toMatchObject({ status: 'disabled', attempts: 1, lastStatus: 410 });
    now += 24 * 3600e3;
    expect(await dispatcher().runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });

  it('honours a longer Retry-After, capped at 24 h', async () => {
    const id = enqueue();
    receiver.handle(reply(503, { 'retry-after': '120' }));
    await dispatcher().runOnce();
    expect(message(id).nextAttemptAt).toBe(now + 120_000);
    now += 119_999;
    expect(await dispatcher().runOnce()).toBe(0);
    now += 1;
    receiver.handle(reply(429, { 'retry-after': '9999999' }));
    expect(await dispatcher().runOnce()).toBe(1);
    expect(message(id).nextAttemptAt).toBe(now + 24 * 3600e3);
    // A shorter Retry-After does not shorten the schedule.
    const other = enqueue();
    receiver.handle(reply(503, { 'retry-after': '0' }));
    await dispatcher().runOnce();
    expect(message(other).nextAttemptAt).toBe(now + 1000);
  });

  it('fails the message once the schedule is exhausted', async () => {
    const id = enqueue();
    receiver.handle(reply(500));
    const d = dispatcher();
    await d.runOnce();
    now += 1000;
    await d.runOnce();
    expect(message(id)).toMatchObject({ status: 'pending', attempts: 2, nextAttemptAt: now + 5000 });
    now += 5000;
    await d.runOnce();
    expect(message(id)).toMatchObject({ status: 'failed', attempts: 3 });
    expect(message(id).lastError).toMatch(/no retries left/);
    expect(attempts(id)).toHaveLength(3);
  });

  it('an address the egress policy refuses fails at once, not retried; errors never hold the URL query', async () => {
    const id = enqueue();
    const strict = createGuardedClient({ allow: [], defaultTimeoutMs: 1000, defaultMaxBytes: 1024 });
    try {
      await dispatcher({ client: strict }).runOnce();
    } finally {
      await strict.close();
    }
    const row = message(id);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, lastStatus: null });
    expect(row.lastError).toMatch(/^refused_address: host localhost/);
    expect(JSON.stringify([row.lastError, attempts(id)])).not.toMatch(/SECRET-TOKEN|hooks/);
    expect(receiver.received).toHaveLength(0);
  });

  it('an unusable URL fails at once', async () => {
    const id = enqueue('ftp://example.com/x');
    await dispatcher().runOnce();
    expect(message(id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(message(id).lastError).toMatch(/^scheme:/);
  });

  it('a body builder returning null drops the message without sending', async () => {
    const id = enqueue();
    await dispatcher({ bodies: { animation: async () => null } }).runOnce();
    expect(message(id)).toMatchObject({ status: 'failed', attempts: 0 });
    expect(message(id).lastError).toMatch(/anm_1 no longer exists/);
    expect(receiver.received).toHaveLength(0);
  });

  it('asks the resource kind of the event for the body; an event of a kind nobody registered is dropped', async () => {
    const asked: string[] = [];
    const d = dispatcher({
      bodies: {
        animation: async (resourceId) => (asked.push(`animation:${resourceId}`), { id: resourceId }),
        clip: async (resourceId) => (asked.push(`clip:${resourceId}`), { id: resourceId }),
      },
    });
    const clip = enqueueWebhook(store.db, { userId: 'usr_a', event: 'clip.done', resourceId: 'clp_1', url: `${receiver.url}/hooks`, now });
    const voice = enqueueWebhook(store.db, { userId: 'usr_a', event: 'voice.done', resourceId: 'vce_1', url: `${receiver.url}/hooks`, now });
    await d.runOnce();
    expect(asked).toEqual(['clip:clp_1']);
    expect(message(clip).status).toBe('delivered');
    expect(message(voice)).toMatchObject({ status: 'failed', attempts: 0 });
    expect(receiver.received.map((r) => JSON.parse(r.body.toString()))).toEqual([{ id: 'clp_1' }]);
  });

  it('a refused connection is a failed attempt, retried later', async () => {
    const id = enqueue('https://localhost:1/hooks');
    await dispatcher().runOnce();
    expect(message(id)).toMatchObject({ status: 'pending', attempts: 1 });
    expect(message(id).lastError).toMatch(/^network:/);
  });

  it('a timeout is a failed attempt', async () => {
    const id = enqueue();
    receiver.handle(() => undefined);
    await dispatcher({ timeoutMs: 150 }).runOnce();
    expect(message(id)).toMatchObject({ status: 'pending', attempts: 1 });
    expect(message(id).lastError).toMatch(/^timeout:/);
  });
});

describe('durability and concurrency', () => {
  it("enqueue joins the caller's transaction: a rollback leaves no message", () => {
    expect(() =>
      store.sqlite.transaction(() => {
        enqueue();
        throw new Error('the render failed to commit');
      })(),
    ).toThrow('the render failed to commit');
    expect(store.db.select().from(webhookMessages).all()).toHaveLength(0);
    store.sqlite.transaction(() => enqueue())();
    expect(store.db.select().from(webhookMessages).all()).toHaveLength(1);
  });

  it('a new dispatcher after a restart delivers pending messages', async () => {
    const first = enqueue();
    receiver.handle(reply(500));
    await dispatcher().runOnce();
    const second = enqueue();
    store.close();

    store = await openTestStore(file);
    now += 1000;
    receiver.handle(reply(200));
    expect(await dispatcher().runOnce()).toBe(2);
    expect(message(first)).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(message(second)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('two dispatchers on one file never send the same attempt', async () => {
    const other = await openTestStore(file);
    try {
      const ids = [enqueue(), enqueue(), enqueue()];
      const a = dispatcher();
      const b = dispatcher({ store: asDatabase(other) });
      const [na, nb] = await Promise.all([a.runOnce(), b.runOnce()]);
      expect(na + nb).toBe(3);
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
    } finally {
      other.close();
    }
  });

  it('a crashed claim is retried after its lease expires', async () => {
    const id = enqueue();
    // Simulate a process that claimed the message and died.
    store.db.update(webhookMessages).set({ leaseOwner: 'whd_dead', leaseUntil: now + 10_000 }).where(eq(webhookMessages.id, id)).run();
    expect(await dispatcher().runOnce()).toBe(0);
    now += 10_000;
    expect(await dispatcher().runOnce()).toBe(1);
    expect(message(id).status).toBe('delivered');
  });

  it('start() delivers in the background; stop() waits for the send in flight', async () => {
    receiver.handle((_req, res) => void setTimeout(() => res.writeHead(200).end(), 200));
    const d = dispatcher();
    d.start();
    const id = enqueue();
    for (let i = 0; i < 100 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(receiver.received).toHaveLength(1);
    expect(message(id).status).toBe('pending');
    await d.stop();
    expect(message(id).status).toBe('delivered');
  });
});

describe('rotation', () => {
  it('during the overlap both secrets sign, and each signature verifies on its own', async () => {
    const secrets = createWebhookSecrets({ store: createSqliteWebhookSecretStore(store.db), clock, masterKey: MASTER });
    const old = (await secrets.getOrCreateSigningSecret('usr_a')).secret;
    const fresh = (await secrets.rotateSigningSecret('usr_a')).secret;
    enqueue();
    await dispatcher({ secrets }).runOnce();
    const req = receiver.received[0]!;
    const sigs = (req.headers['webhook-signature'] as string).split(' ');
    expect(sigs).toHaveLength(2);
    const body = req.body.toString();
    for (const [secret, sig] of [[fresh, sigs[0]!], [old, sigs[1]!]] as const) {
      expect(new Webhook(secret).verify(body, { ...headersOf(req), 'webhook-signature': sig })).toBeTruthy();
    }
    // After the overlap only the new secret signs.
    now += 24 * 3600e3 + 1;
    enqueue();
    await dispatcher({ secrets }).runOnce();
    const later = receiver.received[1]!;
    expect(later.headers['webhook-signature']).toBe(
      signPayload(fresh, later.headers['webhook-id'] as string, Number(later.headers['webhook-timestamp']), later.body.toString()),
    );
  });
});

describe('listDeliveries', () => {
  it("shows a resource's deliveries with their attempts, newest first, owner only", async () => {
    addUser(store, 'usr_b');
    receiver.handle(reply(500));
    const id = enqueue();
    await dispatcher().runOnce();
    now += 1;
    const newer = enqueue();
    enqueueWebhook(store.db, { userId: 'usr_b', event: 'animation.done', resourceId: 'anm_1', url: 'https://x.example/', now });
    const list = listDeliveries(store.db, 'usr_a', 'anm_1');
    expect(list.map((d) => d.id)).toEqual([newer, id]);
    expect(list[1]).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status: 500,
      next_attempt_at: new Date(now - 1 + 1000).toISOString(),
      attempts_log: [{ attempt: 1, status_code: 500, outcome: 'failure', error: 'HTTP 500' }],
    });
    expect(listDeliveries(store.db, 'usr_a', 'anm_2')).toEqual([]);
  });
});
