import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Dialect, OpenStores } from '../dialects.ts';
import { sqliteOf } from '../../helpers/stores.ts';
import type { NewResource, ResourceRow } from '../../../src/resources/store.ts';

/**
 * The resource lifecycle store: charge + insert + job in one step, newest-first pages, and
 * state changes that happen at most once, also when two connections race for them.
 *
 * Users and their credits, and the counts of queued jobs and webhook messages, which this
 * store's interface does not show, are written and read with portable SQL through the handle.
 */
export function contract(dialect: Dialect): void {
  let a: OpenStores;
  let b: OpenStores;
  let n = 0;
  beforeEach(async () => {
    a = await dialect.open();
    b = await a.reopen();
  });
  afterEach(async () => {
    await b.close();
    await a.close();
  });

  const newUser = async (credits: number): Promise<string> => {
    const id = `usr_${++n}`;
    await a.rows(`INSERT INTO users (id, name, credits, permissions, created_at) VALUES ($1, 'u', $2, '[]', 0)`, [id, credits]);
    return id;
  };
  const creditsOf = async (id: string): Promise<number> => Number((await a.rows<{ credits: number }>('SELECT credits FROM users WHERE id = $1', [id]))[0]!.credits);
  /** Makes every insert of a job of `kind` fail (a planted trigger), on either dialect; the undo. */
  const failJobInserts = async (kind: string): Promise<() => Promise<void>> => {
    if (dialect.name === 'sqlite') {
      const { sqlite } = sqliteOf(a.stores.handle);
      sqlite.exec(`CREATE TRIGGER planted_job_failure BEFORE INSERT ON jobs WHEN NEW.kind = '${kind}' BEGIN SELECT RAISE(ABORT, 'planted'); END`);
      return async () => void sqlite.exec('DROP TRIGGER planted_job_failure');
    }
    await a.rows(
      `CREATE FUNCTION planted_job_failure() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN IF NEW.kind = '${kind}' THEN RAISE EXCEPTION 'planted'; END IF; RETURN NEW; END $f$`,
    );
    await a.rows('CREATE TRIGGER planted_job_failure BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION planted_job_failure()');
    return async () => {
      await a.rows('DROP TRIGGER planted_job_failure ON jobs');
      await a.rows('DROP FUNCTION planted_job_failure()');
    };
  };
  const count = async (table: 'jobs' | 'webhook_messages', resourceId: string): Promise<number> =>
    Number((await a.rows<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE resource_id = $1`, [resourceId]))[0]!.n);

  const row = (userId: string, id: string, over: Partial<NewResource> = {}): NewResource => ({
    id,
    kind: 'thing',
    userId,
    request: '{"ask":1}',
    details: '{}',
    webhookUrl: 'https://example.com/hook',
    credits: 2,
    now: 1_000,
    ...over,
  });
  const ending = (status: string, refund: boolean, now = 5_000) => ({ status, refund, now, ...(status === 'error' ? { error: '{"kind":"X","description":"y"}' } : { result: '{"r":1}' }) });

  it('creates: charges, inserts and queues the job together; a short balance writes nothing', async () => {
    const u = (await newUser(3));
    expect(await a.stores.resources.create(row(u, 'thg_1'), { kind: 'thing.work', maxAttempts: 3 })).toBe(true);
    expect(await creditsOf(u)).toBe(1);
    expect(await count('jobs', 'thg_1')).toBe(1);
    const got = await b.stores.resources.get(u, 'thing', 'thg_1');
    expect(got).toMatchObject({ id: 'thg_1', kind: 'thing', userId: u, status: 'created', request: '{"ask":1}', credits: 2, createdAt: 1_000, finishedAt: null });
    expect(got?.webhookUrl).toBe('https://example.com/hook');

    expect(await a.stores.resources.create(row(u, 'thg_2'), { kind: 'thing.work', maxAttempts: 3 })).toBe(false);
    expect(await creditsOf(u)).toBe(1);
    expect(await a.stores.resources.getById('thg_2')).toBeUndefined();
    expect(await count('jobs', 'thg_2')).toBe(0);
  });

  it('shows a resource only to its owner and under its kind', async () => {
    const u = (await newUser(5)), other = (await newUser(5));
    await a.stores.resources.create(row(u, 'thg_1'), null);
    expect(await a.stores.resources.get(other, 'thing', 'thg_1')).toBeUndefined();
    expect(await a.stores.resources.get(u, 'animation', 'thg_1')).toBeUndefined();
    expect(await a.stores.resources.list(other, 'thing', 10, null)).toEqual([]);
    expect(await a.stores.resources.list(u, 'animation', 10, null)).toEqual([]);
  });

  it('lists newest first in keyset pages (ties broken by id)', async () => {
    const u = (await newUser(100));
    for (const [id, now] of [['thg_a', 10], ['thg_b', 20], ['thg_c', 20], ['thg_d', 30]] as const) {
      await a.stores.resources.create(row(u, id, { now, credits: 0 }), null);
    }
    const first = await b.stores.resources.list(u, 'thing', 2, null);
    expect(first.map((r) => r.id)).toEqual(['thg_d', 'thg_c']);
    const last = first.at(-1)!;
    const second = await b.stores.resources.list(u, 'thing', 2, { createdAt: last.createdAt, id: last.id });
    expect(second.map((r) => r.id)).toEqual(['thg_b', 'thg_a']);
    // Of one state only, with and without a cursor.
    await a.stores.resources.finish('thg_c', ending('done', false));
    await a.stores.resources.finish('thg_a', ending('done', false));
    expect((await b.stores.resources.list(u, 'thing', 10, null, 'done')).map((r) => r.id)).toEqual(['thg_c', 'thg_a']);
    expect((await b.stores.resources.list(u, 'thing', 10, { createdAt: 20, id: 'thg_c' }, 'created')).map((r) => r.id)).toEqual(['thg_b']);
  });

  it('starts an unfinished resource once (keeping its first start), records progress, and never restarts a finished one', async () => {
    const u = (await newUser(5));
    await a.stores.resources.create(row(u, 'thg_1'), null);
    expect(await a.stores.resources.start('thg_1', 2_000)).toMatchObject({ status: 'started', startedAt: 2_000 });
    expect(await b.stores.resources.start('thg_1', 3_000)).toMatchObject({ status: 'started', startedAt: 2_000, modifiedAt: 3_000 });
    await b.stores.resources.progress('thg_1', 3, 10, 3_500);
    await b.stores.resources.setDetails('thg_1', '{"k":"v"}', 3_600);
    expect(await a.stores.resources.getById('thg_1')).toMatchObject({ progressDone: 3, progressTotal: 10, details: '{"k":"v"}' });
    // A run started again reports from its first frame: the record keeps the furthest point.
    await a.stores.resources.progress('thg_1', 1, 10, 3_650);
    expect(await b.stores.resources.getById('thg_1')).toMatchObject({ progressDone: 3, progressTotal: 10 });
    expect(await a.stores.resources.setStatus('thg_1', 'validating', 3_700)).toBe(true);

    expect(await a.stores.resources.finish('thg_1', ending('done', false))).toMatchObject({ status: 'done', result: '{"r":1}', progressDone: null, finishedAt: 5_000 });
    expect(await b.stores.resources.start('thg_1', 6_000)).toBeUndefined();
    expect(await b.stores.resources.setStatus('thg_1', 'validating', 6_000)).toBe(false);
    await b.stores.resources.progress('thg_1', 9, 10, 6_000);
    await b.stores.resources.setDetails('thg_1', '{"late":true}', 6_000);
    expect(await a.stores.resources.getById('thg_1')).toMatchObject({ status: 'done', progressDone: null, details: '{"k":"v"}', modifiedAt: 5_000 });
  });

  it('finishes once: of two connections ending the same resource one wins, and one webhook is queued', async () => {
    const u = (await newUser(5));
    await a.stores.resources.create(row(u, 'thg_1'), null);
    const results = await Promise.all([a.stores.resources.finish('thg_1', ending('done', false)), b.stores.resources.finish('thg_1', ending('error', true))]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await count('webhook_messages', 'thg_1')).toBe(1);
    const winner = results.find(Boolean)!;
    const event = (await a.rows<{ event: string }>('SELECT event FROM webhook_messages WHERE resource_id = $1', ['thg_1']))[0]!.event;
    expect(event).toBe(`thing.${winner.status}`);
    // Refunded only when the failure won, and then once.
    const expected = winner.status === 'error' ? 5 : 3;
    expect(await creditsOf(u)).toBe(expected);
    expect(await b.stores.resources.finish('thg_1', ending('error', true))).toBeUndefined();
    expect(await creditsOf(u)).toBe(expected);
  });

  it('queues a follow-up job with the ending, in its transaction: a job insert that fails leaves the resource unfinished, charged and unannounced', async () => {
    const u = (await newUser(5));
    await a.stores.resources.create(row(u, 'thg_1'), null);
    const then = { kind: 'thing.after', resourceId: 'thg_1-after', maxAttempts: 3 };
    // A job insert that fails (a planted trigger) between the ending and the job.
    const unplant = await failJobInserts('thing.after');
    await expect(a.stores.resources.finish('thg_1', { ...ending('done', false), then })).rejects.toThrow(/planted/);
    expect(await b.stores.resources.getById('thg_1')).toMatchObject({ status: 'created', finishedAt: null });
    expect(await count('webhook_messages', 'thg_1')).toBe(0);
    expect(await count('jobs', 'thg_1-after')).toBe(0);
    expect(await creditsOf(u)).toBe(3);

    await unplant();
    expect(await a.stores.resources.finish('thg_1', { ...ending('done', false), then })).toMatchObject({ status: 'done' });
    expect(await b.rows('SELECT kind, user_id AS "userId", max_attempts AS "maxAttempts" FROM jobs WHERE resource_id = $1', ['thg_1-after'])).toEqual([{ kind: 'thing.after', userId: u, maxAttempts: 3 }]);
    expect(await count('webhook_messages', 'thg_1')).toBe(1);
    // An ending that loses (already ended) queues nothing.
    expect(await b.stores.resources.finish('thg_1', { ...ending('done', false), then })).toBeUndefined();
    expect(await count('jobs', 'thg_1-after')).toBe(1);
  });

  it('refunds a failure once, and a failed resource is not refunded again when deleted', async () => {
    const u = (await newUser(5));
    await a.stores.resources.create(row(u, 'thg_1', { webhookUrl: null }), null);
    expect(await creditsOf(u)).toBe(3);
    expect(await a.stores.resources.finish('thg_1', ending('error', true))).toMatchObject({ status: 'error', error: '{"kind":"X","description":"y"}' });
    expect(await b.stores.resources.finish('thg_1', ending('error', true))).toBeUndefined();
    expect(await creditsOf(u)).toBe(5);
    expect(await count('webhook_messages', 'thg_1')).toBe(0);
    expect(await b.stores.resources.remove(u, 'thing', 'thg_1')).toMatchObject({ id: 'thg_1', status: 'error' });
    expect(await creditsOf(u)).toBe(5);
  });

  it('deletes once: an unfinished resource is refunded by the one delete that finds it; a finished one is not', async () => {
    const u = (await newUser(10)), other = (await newUser(0));
    await a.stores.resources.create(row(u, 'thg_1'), null);
    await a.stores.resources.create(row(u, 'thg_2'), null);
    expect(await creditsOf(u)).toBe(6);
    expect(await b.stores.resources.remove(other, 'thing', 'thg_1')).toBeUndefined();
    const removed = await Promise.all([a.stores.resources.remove(u, 'thing', 'thg_1'), b.stores.resources.remove(u, 'thing', 'thg_1')]);
    expect(removed.filter(Boolean)).toHaveLength(1);
    expect(await creditsOf(u)).toBe(8);
    expect(await a.stores.resources.finish('thg_1', ending('error', true))).toBeUndefined();
    expect(await creditsOf(u)).toBe(8);

    await a.stores.resources.finish('thg_2', ending('done', false));
    expect(await b.stores.resources.remove(u, 'thing', 'thg_2')).toMatchObject({ status: 'done' });
    expect(await creditsOf(u)).toBe(8);
    expect(await a.stores.resources.getById('thg_2')).toBeUndefined();
  });

  it('claims another resource once: of two creations racing for one consent, one wins; a short balance or a failed claim writes nothing', async () => {
    const u = (await newUser(10)), other = (await newUser(10));
    await a.stores.resources.create(row(u, 'cns_1', { kind: 'consent', credits: 0 }), null);
    const claim = { id: 'cns_1', kind: 'consent', status: 'done' };
    // Not done yet: refused, nothing charged.
    expect(await a.stores.resources.createClaiming(row(u, 'avt_0', { kind: 'avatar' }), null, claim)).toBe('claimed');
    await a.stores.resources.finish('cns_1', ending('done', false));
    // Another user's consent is never claimed.
    expect(await a.stores.resources.createClaiming(row(other, 'avt_x', { kind: 'avatar' }), null, claim)).toBe('claimed');
    expect(await creditsOf(other)).toBe(10);
    const both = await Promise.all([
      a.stores.resources.createClaiming(row(u, 'avt_1', { kind: 'avatar' }), { kind: 'avatar.work', maxAttempts: 2 }, claim),
      b.stores.resources.createClaiming(row(u, 'avt_2', { kind: 'avatar' }), { kind: 'avatar.work', maxAttempts: 2 }, claim),
    ]);
    expect(both.sort()).toEqual(['claimed', 'created']);
    const winner = both[0] === 'created' ? 'avt_1' : 'avt_2';
    expect(await creditsOf(u)).toBe(8);
    expect((await a.stores.resources.getById('cns_1'))?.claimedBy).toBeTruthy();
    expect((await count('jobs', 'avt_1')) + (await count('jobs', 'avt_2'))).toBe(1);

    // The winner fails: the consent is free again; a short balance then rolls the claim back.
    await b.stores.resources.finish((await a.stores.resources.getById('cns_1'))!.claimedBy!, ending('error', true));
    expect((await a.stores.resources.getById('cns_1'))?.claimedBy).toBeNull();
    expect(await a.stores.resources.createClaiming(row(u, 'avt_3', { kind: 'avatar', credits: 50 }), null, claim)).toBe('credits');
    expect((await a.stores.resources.getById('cns_1'))?.claimedBy).toBeNull();
    expect(await a.stores.resources.getById('avt_3')).toBeUndefined();
    expect(winner).toMatch(/^avt_/);

    // Deleting an unfinished claimant frees it; a done one keeps it used even when deleted.
    expect(await a.stores.resources.createClaiming(row(u, 'avt_4', { kind: 'avatar' }), null, claim)).toBe('created');
    await a.stores.resources.remove(u, 'avatar', 'avt_4');
    expect((await a.stores.resources.getById('cns_1'))?.claimedBy).toBeNull();
    expect(await a.stores.resources.createClaiming(row(u, 'avt_5', { kind: 'avatar' }), null, claim)).toBe('created');
    await a.stores.resources.finish('avt_5', ending('done', false));
    await a.stores.resources.remove(u, 'avatar', 'avt_5');
    expect((await a.stores.resources.getById('cns_1'))?.claimedBy).toBe('avt_5');
  });

  it('a delete of a claimant racing a new claim of its consent never deadlocks: the consent ends claimed by whoever holds it', async () => {
    const u = await newUser(1_000);
    await a.stores.resources.create(row(u, 'cns_1', { kind: 'consent', credits: 0, webhookUrl: null }), null);
    await a.stores.resources.finish('cns_1', ending('done', false));
    const claim = { id: 'cns_1', kind: 'consent', status: 'done' };
    const avatar = (id: string) => row(u, id, { kind: 'avatar', webhookUrl: null });
    for (let i = 0; i < 40; i++) {
      expect(await a.stores.resources.createClaiming(avatar(`avt_${i}a`), null, claim)).toBe('created');
      const [removed, next] = await Promise.all([
        (i % 2 ? a : b).stores.resources.remove(u, 'avatar', `avt_${i}a`),
        (i % 2 ? b : a).stores.resources.createClaiming(avatar(`avt_${i}b`), null, claim),
      ]);
      expect(removed?.id).toBe(`avt_${i}a`);
      expect((await a.stores.resources.getById('cns_1'))?.claimedBy).toBe(next === 'created' ? `avt_${i}b` : null);
      if (next === 'created') await b.stores.resources.remove(u, 'avatar', `avt_${i}b`);
    }
    expect(await creditsOf(u)).toBe(1_000);
  });

  it('advances an unfinished resource from one state once, with its details, webhook and job', async () => {
    const u = (await newUser(5));
    await a.stores.resources.create(row(u, 'cns_1', { webhookUrl: null, credits: 0 }), null);
    const step = (now: number) => ({ from: 'created', to: 'validating', details: '{"name":"A"}', webhookUrl: 'https://example.com/h', job: { kind: 'consent.verify', maxAttempts: 2 }, now });
    const both = await Promise.all([a.stores.resources.advance('cns_1', step(2_000)), b.stores.resources.advance('cns_1', step(2_001))]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(await count('jobs', 'cns_1')).toBe(1);
    expect(await a.stores.resources.getById('cns_1')).toMatchObject({ status: 'validating', details: '{"name":"A"}', webhookUrl: 'https://example.com/h' });
    await a.stores.resources.finish('cns_1', ending('done', false));
    expect(await a.stores.resources.advance('cns_1', { ...step(3_000), from: 'done' })).toBeUndefined();
  });

  it('amends the result of a done resource only, and only for its owner', async () => {
    const u = (await newUser(5)), other = (await newUser(5));
    await a.stores.resources.create(row(u, 'avt_1', { webhookUrl: null }), null);
    expect(await a.stores.resources.amendResult(u, 'thing', 'avt_1', '{"name":"B"}', 2_000)).toBeUndefined();
    await a.stores.resources.finish('avt_1', ending('done', false));
    expect(await a.stores.resources.amendResult(other, 'thing', 'avt_1', '{"name":"B"}', 6_000)).toBeUndefined();
    expect(await b.stores.resources.amendResult(u, 'thing', 'avt_1', '{"name":"B"}', 6_000)).toMatchObject({ result: '{"name":"B"}', modifiedAt: 6_000, status: 'done' });
  });

  it('lists the unfinished resources of a kind in a state, of every user, oldest first', async () => {
    const u = (await newUser(10)), v = (await newUser(10));
    await a.stores.resources.create(row(u, 'cns_1', { kind: 'consent', credits: 0, now: 3_000 }), null);
    await a.stores.resources.create(row(v, 'cns_2', { kind: 'consent', credits: 0, now: 2_000 }), null);
    await a.stores.resources.create(row(v, 'cns_3', { kind: 'consent', credits: 0, now: 1_000 }), null);
    for (const id of ['cns_1', 'cns_2', 'cns_3']) await a.stores.resources.setStatus(id, 'validating', 4_000);
    await a.stores.resources.finish('cns_3', ending('done', false));
    expect((await b.stores.resources.listInState('consent', 'validating', 10)).map((r) => r.id)).toEqual(['cns_2', 'cns_1']);
    expect((await b.stores.resources.listInState('consent', 'validating', 1)).map((r) => r.id)).toEqual(['cns_2']);
    expect(await b.stores.resources.listInState('thing', 'validating', 10)).toEqual([]);
  });

  it('races finish, delete and a failing finish of the same resources from two connections: one wins each, credits add up, one webhook each', async () => {
    const N = 200;
    const u = await newUser(2 * N);
    const ids = Array.from({ length: N }, (_, i) => `thg_${String(i).padStart(3, '0')}`);
    for (const id of ids) expect(await a.stores.resources.create(row(u, id), null)).toBe(true);
    expect(await creditsOf(u)).toBe(0);

    // Each resource is raced by three writers; which connection does what alternates.
    const races = await Promise.all(
      ids.map(async (id, i) => {
        const [x, y] = i % 2 ? [a, b] : [b, a];
        const [done, removed, failed] = await Promise.all([
          x.stores.resources.finish(id, ending('done', false)),
          y.stores.resources.remove(u, 'thing', id),
          y.stores.resources.finish(id, ending('error', true)),
        ]);
        return { id, done, removed, failed };
      }),
    );

    let refunds = 0;
    let announced = 0;
    for (const { id, done, removed, failed } of races) {
      // A delete always finds the row (nothing else deletes it); it wins only when the row was unfinished.
      expect(removed?.id).toBe(id);
      const winners: ResourceRow[] = [done, failed, removed!.finishedAt === null ? removed : undefined].filter((r) => r !== undefined);
      expect(winners, id).toHaveLength(1);
      if (failed || removed!.finishedAt === null) refunds++;
      const events = await a.rows<{ event: string }>('SELECT event FROM webhook_messages WHERE resource_id = $1', [id]);
      const finished = done ?? failed;
      expect(events.map((e) => e.event), id).toEqual(finished ? [`thing.${finished.status}`] : []);
      if (finished) announced++;
      // What the delete saw is the ending that won, if one did.
      if (finished) expect(removed).toMatchObject({ status: finished.status, finishedAt: 5_000 });
    }
    expect(await creditsOf(u)).toBe(2 * refunds);
    expect(Number((await a.rows<{ n: number }>('SELECT count(*) AS n FROM webhook_messages WHERE user_id = $1', [u]))[0]!.n)).toBe(announced);
    expect(Number((await a.rows<{ n: number }>('SELECT count(*) AS n FROM resources WHERE user_id = $1', [u]))[0]!.n)).toBe(0);
  });

  it('never takes credits below zero: of creations racing against a balance that covers some, just those are made', async () => {
    const u = await newUser(50);
    const tries = Array.from({ length: 60 }, (_, i) => `thg_${String(i).padStart(3, '0')}`);
    const made = await Promise.all(
      tries.map((id, i) => (i % 2 ? a : b).stores.resources.create(row(u, id, { credits: 3 }), { kind: 'thing.work', maxAttempts: 1 })),
    );
    // 16 × 3 = 48 of the 50 credits; the rest were refused and wrote nothing.
    expect(made.filter(Boolean)).toHaveLength(16);
    expect(await creditsOf(u)).toBe(2);
    const created = tries.filter((_, i) => made[i]);
    expect(Number((await a.rows<{ n: number }>('SELECT count(*) AS n FROM resources WHERE user_id = $1', [u]))[0]!.n)).toBe(16);
    expect(Number((await a.rows<{ n: number }>('SELECT count(*) AS n FROM jobs WHERE user_id = $1', [u]))[0]!.n)).toBe(16);
    for (const id of created) expect(await count('jobs', id)).toBe(1);
  });
}
