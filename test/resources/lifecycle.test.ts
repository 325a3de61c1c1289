/**
 * The resource lifecycle for a kind other than animations: what a new kind (a consent with
 * `validating` and `rejected`) gets by declaring itself, over the real store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/db/client.ts';
import { createAllStores } from '../helpers/stores.ts';
import { resourceLifecycle, webhookBodyBuilders, type Lifecycle, type ResourceKind } from '../../src/resources/lifecycle.ts';
import type { ResourceRow } from '../../src/resources/store.ts';

let dir: string;
let handle: Store;
let now = 1_000;
const clock = { now: () => now };
const jobs: { kind: string; resourceId: string }[] = [];

const consentKind: ResourceKind<{ id: string; object: string; status: string; verdict?: unknown }> = {
  name: 'consent',
  idPrefix: 'cns',
  cost: 2,
  jobKind: 'consent.verify',
  extraStates: { active: ['validating'], final: ['rejected'], refundOn: ['rejected'] },
  present: (row: ResourceRow) => ({ id: row.id, object: 'consent', status: row.status, ...(row.result ? { verdict: JSON.parse(row.result) } : {}) }),
  webhookBody: (row: ResourceRow) => ({ consent: row.id, status: row.status }),
};

let consents: Lifecycle<ReturnType<typeof consentKind.present>>;
const credits = (id: string) => (handle.sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(id) as { credits: number }).credits;
const hooks = (id: string) => handle.sqlite.prepare('SELECT event FROM webhook_messages WHERE resource_id = ?').all(id) as { event: string }[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mimic-lifecycle-'));
  handle = openStore(join(dir, 'mimic.db'));
  handle.sqlite.prepare(`INSERT INTO users (id, credits, permissions, created_at) VALUES ('usr_1', 5, '[]', 1)`).run();
  jobs.length = 0;
  const stores = createAllStores(handle, { enqueueJob: (j) => jobs.push(j) });
  consents = resourceLifecycle(consentKind, { resources: stores.resources, clock });
});
afterEach(() => {
  handle.close();
  rmSync(dir, { recursive: true, force: true });
});

const create = (id: string, webhookUrl?: string) => consents.create({ id, userId: 'usr_1', request: { who: 'me' }, details: {}, webhookUrl, maxAttempts: 3 });

describe('a new resource kind', () => {
  it('is charged its cost with its job queued, moves through its extra state, and a declared refunding final state gives the credits back once', async () => {
    expect(consents.newId((p) => `${p}_x`)).toBe('cns_x');
    expect(await create('cns_1', 'https://example.com/hook')).toMatchObject({ id: 'cns_1', kind: 'consent', status: 'created', credits: 2 });
    expect(credits('usr_1')).toBe(3);
    expect(jobs).toEqual([expect.objectContaining({ kind: 'consent.verify', resourceId: 'cns_1', userId: 'usr_1', maxAttempts: 3 })]);

    expect(await consents.moveTo('cns_1', 'validating')).toBe(true);
    expect((await consents.fetch('usr_1', 'cns_1', 'Consent')).status).toBe('validating');
    now = 2_000;
    expect(await consents.finish('cns_1', { reason: 'no match' }, 'rejected')).toBe(true);
    expect(await consents.finish('cns_1', {}, 'done')).toBe(false);
    expect(await consents.fail('cns_1', 'X', 'y')).toBe(false);
    expect(await consents.moveTo('cns_1', 'validating')).toBe(false);
    expect(credits('usr_1')).toBe(5);
    expect(hooks('cns_1')).toEqual([{ event: 'consent.rejected' }]);
    expect(await webhookBodyBuilders([consents]).consent!('cns_1', 'usr_1')).toEqual({ consent: 'cns_1', status: 'rejected' });
    expect(await webhookBodyBuilders([consents]).consent!('cns_1', 'usr_other')).toBeNull();
    expect(consentKind.present(await consents.fetch('usr_1', 'cns_1', 'Consent'))).toEqual({ id: 'cns_1', object: 'consent', status: 'rejected', verdict: { reason: 'no match' } });
  });

  it('refuses states the kind does not declare', async () => {
    await create('cns_1');
    await expect(consents.moveTo('cns_1', 'sleeping')).rejects.toThrow(/not a state/);
    await expect(consents.finish('cns_1', {}, 'validating')).rejects.toThrow(/not a final state/);
    await expect(consents.finish('cns_1', {}, 'error')).rejects.toThrow(/not a final state/);
  });

  it('keeps the credit when done, refunds an unfinished delete, pages newest first, and is short of credits without writing', async () => {
    await create('cns_1');
    expect(await consents.finish('cns_1', { ok: true })).toBe(true);
    expect(credits('usr_1')).toBe(3);
    now = 3_000;
    await create('cns_2');
    expect(credits('usr_1')).toBe(1);
    expect(await create('cns_3')).toBeNull();
    expect(jobs.map((j) => j.resourceId)).toEqual(['cns_1', 'cns_2']);

    const first = await consents.page('usr_1', 1, null);
    expect(first.items.map((r) => r.id)).toEqual(['cns_2']);
    expect(first.token).toEqual(expect.any(String));
    await consents.remove('usr_1', 'cns_2', 'Consent');
    expect(credits('usr_1')).toBe(3);
    await consents.remove('usr_1', 'cns_1', 'Consent');
    expect(credits('usr_1')).toBe(3);
    await expect(consents.remove('usr_1', 'cns_1', 'Consent')).rejects.toMatchObject({ kind: 'NotFoundError' });
    expect(hooks('cns_1')).toEqual([]);
  });
});

describe('progress', () => {
  const stored = (id: string) => handle.sqlite.prepare('SELECT progress_done AS done, progress_total AS total FROM resources WHERE id = ?').get(id);

  it('never goes back when a render runs again from its first frame (a restart, a retry), and moves on once the new run passes it', async () => {
    await create('cns_p');
    await consents.progress('cns_p', 150, 200);
    await consents.progress('cns_p', 5, 200); // the same render, started again after a restart
    expect(stored('cns_p')).toEqual({ done: 150, total: 200 });
    await consents.progress('cns_p', 150, 200);
    await consents.progress('cns_p', 160, 200);
    expect(stored('cns_p')).toEqual({ done: 160, total: 200 });
    // Another total (a run with other frames) keeps the furthest fraction: 35/50 is behind 160/200.
    await consents.progress('cns_p', 35, 50);
    expect(stored('cns_p')).toEqual({ done: 160, total: 200 });
    await consents.progress('cns_p', 45, 50);
    expect(stored('cns_p')).toEqual({ done: 45, total: 50 });
    expect(await consents.finish('cns_p', {}, 'done')).toBe(true);
    expect(stored('cns_p')).toEqual({ done: null, total: null });
  });
});
