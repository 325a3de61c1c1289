import { expect, it } from 'vitest';
import type { Dialect, OpenStores } from '../dialects.ts';
import { claimAllAtOnce } from '../claims.ts';
import { audit, secretRow, seedUser } from '../seed.ts';
import { createWebhookDispatcher } from '../../../src/webhooks/dispatcher.ts';
import { silentLogger } from '../../../src/log.ts';

/** The rows these contracts need from other areas, through those areas' stores: the messages' owner, and for the refresh lock a secret. */
async function seed(s: OpenStores, what: 'owner' | 'secret' = 'owner'): Promise<void> {
  await seedUser(s.stores, 'usr_1');
  if (what === 'secret') await s.stores.secrets.create(secretRow('usr_1', 'sec_1', 0, { type: 'oauth2' }), [], audit('usr_1', 0, { action: 'secret.created' }));
}

const message = (now: number, i: number) => ({ userId: 'usr_1', event: 'animation.done', resourceId: `anm_${i}`, url: 'https://hooks.example/x', now });

/** Two connections to one fresh, seeded database (two processes' views), closed after `fn` whatever happens. */
async function withTwo(dialect: Dialect, what: 'owner' | 'secret', fn: (a: OpenStores, b: OpenStores) => Promise<void>): Promise<void> {
  const a = await dialect.open();
  try {
    await seed(a, what);
    const b = await a.reopen();
    try {
      await fn(a, b);
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
  }
}

/** The webhook outbox's claim, and the oauth2 refresh lock: both the one lease mechanism. */
export function contract(dialect: Dialect): void {
  it('two connections claiming at once never take the same message', async () => {
    await withTwo(dialect, 'owner', async (a, b) => {
    const now = Date.now();
    const ids = new Set<string>();
    for (let i = 0; i < 30; i++) ids.add(await a.stores.outbox.enqueue(message(now, i)));
    const got = await claimAllAtOnce([a, b, a, b].map((s) => () => s.stores.outbox.claim(now, 60_000, 3)));
    expect(got).toHaveLength(ids.size);
    expect(new Set(got)).toEqual(ids);
    });
  });

  it('two dispatchers on one database never send the same attempt, and deliver every message', async () => {
    await withTwo(dialect, 'owner', async (a, b) => {
    const now = Date.now();
    const ids = new Set<string>();
    for (let i = 0; i < 40; i++) ids.add(await a.stores.outbox.enqueue(message(now, i)));
    // The receiving end, a double: it records each webhook-id it is sent.
    const sent: string[] = [];
    const client = {
      async request(_url: string, init?: { headers?: Record<string, string> }) {
        sent.push(init!.headers!['webhook-id']!);
        await new Promise((r) => setImmediate(r));
        return { status: 200, headers: {}, body: Buffer.alloc(0) };
      },
    };
    const dispatcherOn = (s: OpenStores) =>
      createWebhookDispatcher({
        store: s.stores.handle,
        outbox: s.stores.outbox,
        client,
        clock: { now: () => now },
        masterKey: Buffer.alloc(32, 7),
        schedule: [1000],
        timeoutMs: 30_000,
        pollMs: 20,
        log: silentLogger,
        batchSize: 3,
        bodies: { animation: async (resourceId) => ({ data: { id: resourceId } }) },
      });
    const runAll = async (d: ReturnType<typeof dispatcherOn>) => {
      while ((await d.runOnce()) > 0);
    };
    await Promise.all([runAll(dispatcherOn(a)), runAll(dispatcherOn(b)), runAll(dispatcherOn(a)), runAll(dispatcherOn(b))]);
    expect(sent).toHaveLength(ids.size);
    expect(new Set(sent)).toEqual(ids);
    for (let i = 0; i < 40; i++) expect(await b.stores.outbox.listDeliveries('usr_1', `anm_${i}`)).toMatchObject([{ status: 'delivered', attempts: 1, attempts_log: [{ attempt: 1, outcome: 'success' }] }]);
    });
  });

  it('an expired claim is taken over, and the old owner can no longer move the message', async () => {
    await withTwo(dialect, 'owner', async (a, b) => {
    const now = Date.now();
    const id = await a.stores.outbox.enqueue(message(now, 1));
    const [first] = await a.stores.outbox.claim(now, 1000, 10);
    expect(await b.stores.outbox.claim(now + 999, 1000, 10)).toEqual([]);
    const [second] = await b.stores.outbox.claim(now + 1000, 1000, 10);
    expect(second?.id).toBe(id);
    const rec = { startedAt: now, durationMs: 5, now: now + 1001 };
    expect(await a.stores.outbox.recordAttempt(first!, { outcome: 'delivered', statusCode: 200 }, rec)).toBe(false);
    expect(await b.stores.outbox.recordAttempt(second!, { outcome: 'delivered', statusCode: 200 }, rec)).toBe(true);
    const [view] = await a.stores.outbox.listDeliveries('usr_1', 'anm_1');
    // Both attempts are on record; the message moved once.
    expect(view).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(view!.attempts_log).toHaveLength(2);
    });
  });

  it("lists a user's messages newest first in pages, of one resource when asked, each with its attempts", async () => {
    await withTwo(dialect, 'owner', async (a, b) => {
      await seedUser(a.stores, 'usr_2');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await a.stores.outbox.enqueue({ ...message(1_000 + i, i % 2), id: `msg_${i}` }));
      await a.stores.outbox.enqueue({ ...message(2_000, 0), userId: 'usr_2', id: 'msg_other' });
      const [claimed] = await a.stores.outbox.claim(1_000, 60_000, 1);
      expect(claimed?.id).toBe('msg_0');
      await a.stores.outbox.recordAttempt(claimed!, { outcome: 'retry', statusCode: 500, error: 'HTTP 500', nextAttemptAt: 9_000 }, { startedAt: 1_500, durationMs: 12.4, now: 1_600 });

      const first = await b.stores.outbox.listMessages({ userId: 'usr_1', limit: 2 });
      expect(first.messages.map((m) => m.id)).toEqual(['msg_4', 'msg_3']);
      const second = await b.stores.outbox.listMessages({ userId: 'usr_1', limit: 2, after: first.next! });
      expect(second.messages.map((m) => m.id)).toEqual(['msg_2', 'msg_1']);
      const last = await b.stores.outbox.listMessages({ userId: 'usr_1', limit: 2, after: second.next! });
      expect(last).toEqual({ messages: [expect.objectContaining({ id: 'msg_0' })] });
      expect(last.messages[0]).toMatchObject({
        status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500', next_attempt_at: new Date(9_000).toISOString(),
        attempts_log: [{ attempt: 1, started_at: new Date(1_500).toISOString(), duration_ms: 12, status_code: 500, outcome: 'failure', error: 'HTTP 500' }],
      });
      const ofResource = await b.stores.outbox.listMessages({ userId: 'usr_1', resourceId: 'anm_1', limit: 10 });
      expect(ofResource.messages.map((m) => m.id)).toEqual(['msg_3', 'msg_1']);
      expect((await b.stores.outbox.listDeliveries('usr_1', 'anm_0')).map((m) => m.id)).toEqual(['msg_4', 'msg_2', 'msg_0']);
      expect(await b.stores.outbox.listDeliveries('usr_2', 'anm_1')).toEqual([]);
    });
  });

  // A lease on SQLite; on PostgreSQL the refresh lock is an advisory lock (its own contract in secrets.ts).
  it.skipIf(dialect.name !== 'sqlite')('the refresh lock lets one owner in at a time across connections, expires, and is released only by its owner', async () => {
    await withTwo(dialect, 'secret', async (a, b) => {
    expect(await a.stores.secretLocks.take('sec_1', 'one', 1000, 500)).toBe(true);
    expect(await b.stores.secretLocks.take('sec_1', 'two', 1499, 500)).toBe(false);
    await b.stores.secretLocks.release('sec_1', 'two');
    expect(await b.stores.secretLocks.take('sec_1', 'two', 1499, 500)).toBe(false);
    expect(await b.stores.secretLocks.take('sec_1', 'two', 1500, 500)).toBe(true);
    await a.stores.secretLocks.release('sec_1', 'one');
    expect(await a.stores.secretLocks.take('sec_1', 'three', 1600, 500)).toBe(false);
    await b.stores.secretLocks.release('sec_1', 'two');
    expect(await a.stores.secretLocks.take('sec_1', 'three', 1600, 500)).toBe(true);
    expect(await a.stores.secretLocks.take('sec_missing', 'x', 1600, 500)).toBe(false);
    });
  });
}
