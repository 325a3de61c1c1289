import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import type { ServiceOptions } from '../../src/services.ts';
import type { ModuleInstance } from '../../src/platform/module.ts';
import type { Job } from '../../src/jobs/queue.ts';
import { sseEvents } from '../helpers/sse.ts';
import { sqliteOf } from '../helpers/stores.ts';

/**
 * What every resource kind (src/resources/define.ts) promises over HTTP, on the real app and
 * a real SQLite file: its cost charged at creation, refunded when its job gives up and when
 * it is deleted unfinished; its webhook body is its GET record; its list pages newest first
 * by limit and token; and another user sees none of it. A kind states only how to make one.
 */
export interface ResourceFixture {
  /** e.g. 'animation': the record's `object` and the webhook event prefix. */
  name: string;
  /** e.g. '/animations'. */
  path: string;
  /** e.g. 'animations': the list body's field. */
  many: string;
  /** What a record made by `create` costs. */
  cost: number;
  /** The harness's options beyond the contract's (e.g. the voices a clip speaks with). */
  options?: ServiceOptions;
  /** Makes a record of the user's (its webhook to `webhook` when given), its job queued; answers its id. */
  create(h: Harness, user: { id: string; key: string }, webhook?: string): Promise<string>;
}

export function resourceContract(kind: ResourceFixture): void {
  describe(`the ${kind.name} resource kind`, () => {
    let h: Harness;
    let receiver: TestServer;
    // A clock the test moves: the webhook body and the GET record mint the same signed URLs, and pages have distinct times.
    let now = Date.now();
    const clock = { now: () => now };
    const credits = (id: string) => (sqliteOf(h.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(id) as { credits: number }).credits;
    const queuedJob = (resourceId: string) =>
      sqliteOf(h.services.store).sqlite
        .prepare("SELECT id, kind, resource_id AS resourceId, user_id AS userId, attempts, max_attempts AS maxAttempts, '' AS leaseOwner FROM jobs WHERE resource_id = ? AND status = 'queued'")
        .get(resourceId) as Job | undefined;
    /** Its job gives up, as after its last attempt: the kind's exhaustion runs. */
    const exhaust = async (resourceId: string) => {
      const job = queuedJob(resourceId);
      expect(job, 'a queued job').toBeDefined();
      const jobKind = Object.values(h.services.modules as Record<string, ModuleInstance>).flatMap((m) => m.jobs ?? []).find((k) => k.kind === job!.kind);
      await jobKind!.onExhausted(job!, 'test: out of attempts');
    };
    const user = () => h.user({ credits: 3 * kind.cost + 1 });

    beforeAll(async () => {
      receiver = await startTlsServer();
      h = harness({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_WEBHOOK_RETRY_SCHEDULE_MS: '0' }, { ca: [receiver.ca], clock, ...kind.options });
    });
    afterAll(async () => {
      await h?.close();
      await receiver?.close();
    });

    it('charges its cost at creation and shows the record to its owner', async () => {
      const u = user();
      const id = await kind.create(h, u);
      expect(credits(u.id)).toBe(1 + 2 * kind.cost);
      const got = await h.call('GET', `${kind.path}/${id}`, { key: u.key });
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id, object: kind.name });
      expect((await h.call('GET', kind.path, { key: u.key })).body[kind.many]).toEqual([got.body]);
    });

    it('ends in error when its job gives up, refunded once', async () => {
      const u = user();
      const id = await kind.create(h, u);
      await exhaust(id);
      const rec = (await h.call('GET', `${kind.path}/${id}`, { key: u.key })).body;
      expect(rec).toMatchObject({ status: 'error', error: { kind: 'UnknownError' } });
      expect(credits(u.id)).toBe(1 + 3 * kind.cost);
      // Given up again (another process's attempt): the record had ended, nothing more is refunded.
      await exhaust(id);
      expect(credits(u.id)).toBe(1 + 3 * kind.cost);
    });

    it('is refunded when deleted unfinished; its job is cancelled and it is gone', async () => {
      const u = user();
      const id = await kind.create(h, u);
      const deleted = await h.call('DELETE', `${kind.path}/${id}`, { key: u.key });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ id, object: kind.name });
      expect(credits(u.id)).toBe(1 + 3 * kind.cost);
      expect(queuedJob(id)).toBeUndefined();
      expect((await h.call('GET', `${kind.path}/${id}`, { key: u.key })).status).toBe(404);
      expect((await h.call('DELETE', `${kind.path}/${id}`, { key: u.key })).status).toBe(404);
      expect(credits(u.id)).toBe(1 + 3 * kind.cost);
    });

    it('sends its GET record as the webhook body of its final state', async () => {
      const u = user();
      const id = await kind.create(h, u, `${receiver.url}/${kind.name}`);
      await exhaust(id);
      await h.services.modules.webhooks.dispatcher.runOnce();
      const sent = receiver.received.filter((r) => r.path === `/${kind.name}`).map((r) => JSON.parse(r.body.toString()));
      const record = (await h.call('GET', `${kind.path}/${id}`, { key: u.key })).body;
      expect(record).toMatchObject({ status: 'error', webhook: `${receiver.url}/${kind.name}` });
      expect(sent).toEqual([record]);
      expect(sqliteOf(h.services.store).sqlite.prepare('SELECT event FROM webhook_messages WHERE resource_id = ?').all(id)).toEqual([{ event: `${kind.name}.error` }]);
    });

    it('lists its records newest first, a page at a time (limit and token)', async () => {
      const u = user();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        now += 1000;
        ids.push(await kind.create(h, u));
      }
      const first = (await h.call('GET', `${kind.path}?limit=2`, { key: u.key })).body;
      expect(first[kind.many].map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
      expect(first.token).toEqual(expect.any(String));
      const second = (await h.call('GET', `${kind.path}?limit=2&token=${encodeURIComponent(first.token)}`, { key: u.key })).body;
      expect(second[kind.many].map((r: { id: string }) => r.id)).toEqual([ids[0]]);
      expect(second.token).toBeUndefined();
      expect((await h.call('GET', `${kind.path}?limit=0`, { key: u.key })).status).toBe(400);
    });

    it('filters its list by status; an unknown status is a 400 that names the states', async () => {
      const u = user();
      const failed = await kind.create(h, u);
      now += 1000;
      const live = await kind.create(h, u);
      await exhaust(failed);
      const ids = async (query: string) => ((await h.call('GET', `${kind.path}${query}`, { key: u.key })).body[kind.many] as { id: string }[]).map((r) => r.id);
      expect(await ids('?status=error')).toEqual([failed]);
      expect(await ids('')).toEqual([live, failed]);
      expect(await ids('?status=done')).toEqual([]);
      const bad = await h.call('GET', `${kind.path}?status=bogus`, { key: u.key });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ kind: 'BadRequestError', details: { states: expect.arrayContaining(['created', 'done', 'error']) } });
    });

    it('follows a record live: its record at once, each change, then end; not another user\'s', async () => {
      const u = user();
      const id = await kind.create(h, u);
      const res = await h.app.request(`${kind.path}/${id}/events`, { headers: { authorization: `Basic ${u.key}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const events = sseEvents(res.body!);
      const first = await events.next();
      expect(first.value).toMatchObject({ event: 'record', data: { id, object: kind.name } });
      await exhaust(id);
      const rest: { event: string; data: any }[] = [];
      for await (const e of events) rest.push(e);
      expect(rest.at(-2)).toMatchObject({ event: 'record', data: { id, status: 'error', error: { kind: 'UnknownError' } } });
      expect(rest.at(-1)).toEqual({ event: 'end', data: { id, status: 'error' } });
      // A settled record: its record, then end at once.
      const again = sseEvents((await h.app.request(`${kind.path}/${id}/events`, { headers: { authorization: `Basic ${u.key}` } })).body!);
      const replay: string[] = [];
      for await (const e of again) replay.push(e.event);
      expect(replay).toEqual(['record', 'end']);
      expect((await h.call('GET', `${kind.path}/${id}/events`, { key: user().key })).status).toBe(404);
      expect((await h.call('GET', `${kind.path}/${kind.name.slice(0, 3)}_nope/events`, { key: u.key })).status).toBe(404);
    });

    it('tells a follower when the record is deleted', async () => {
      const u = user();
      const id = await kind.create(h, u);
      const events = sseEvents((await h.app.request(`${kind.path}/${id}/events`, { headers: { authorization: `Basic ${u.key}` } })).body!);
      expect((await events.next()).value).toMatchObject({ event: 'record' });
      expect((await h.call('DELETE', `${kind.path}/${id}`, { key: u.key })).status).toBe(200);
      const rest: string[] = [];
      for await (const e of events) rest.push(e.event);
      expect(rest.at(-1)).toBe('deleted');
    });

    it("is its owner's only: another user's GET and DELETE of it answer 404, and their list is empty", async () => {
      const u = user();
      const id = await kind.create(h, u);
      const other = user();
      expect((await h.call('GET', `${kind.path}/${id}`, { key: other.key })).status).toBe(404);
      expect((await h.call('DELETE', `${kind.path}/${id}`, { key: other.key })).status).toBe(404);
      expect((await h.call('GET', kind.path, { key: other.key })).body).toEqual({ [kind.many]: [] });
      expect((await h.call('GET', `${kind.path}/${id}`, { key: u.key })).status).toBe(200);
      expect(credits(u.id)).toBe(1 + 2 * kind.cost);
      expect(queuedJob(id)).toBeDefined();
    });
  });
}
