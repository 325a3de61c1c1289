/**
 * Issue 19, point 4.3: an avatar's talking preview is queued in the same transaction that
 * finishes the avatar, so a done avatar always has its preview coming, and an avatar whose
 * preview could not be queued is not done. Training is the fake backend's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { stored } from '../consents/helpers.ts';
import type { AvatarDetails } from '../../src/avatars/kind.ts';
import type { Job } from '../../src/jobs/queue.ts';
import { avatarBody, verifiedConsent } from './helpers.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("an avatar's talking preview", () => {
  it('is queued with the ending: a preview job that cannot be queued leaves the avatar unfinished, and none is left behind', async () => {
    h = harness();
    const sqlite = sqliteOf(h.services.store).sqlite;
    const u = h.user({ credits: 100 });
    const consent = await verifiedConsent(h, u.id);
    const file = join(h.config.dataDir, 'footage.mp4');
    // The fake backend trains without reading the footage; the job only fetches it.
    writeFileSync(file, 'footage');
    const created = await h.call('POST', '/clips/avatars', { key: u.key, body: avatarBody(consent, await stored(h, u.id, file, 'footage.mp4')) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, presenter_id: presenterId } = created.body as { id: string; presenter_id: string };
    // The checks passed already (they are not what this test is about); the job is run by hand.
    await h.services.queue.cancelFor(id);
    const lifecycle = h.services.modules.avatars.deps.lifecycle;
    const details = JSON.parse((await lifecycle.getById(id))!.details) as AvatarDetails;
    await lifecycle.setDetails(id, { ...details, checked: true, windows: { idle: { fromSec: 290, toSec: 330 }, speech: { fromSec: 0, toSec: 289.5 } } } satisfies AvatarDetails);
    const job: Job = { id: 'job_by_hand', kind: 'avatar.create', resourceId: id, userId: u.id, attempts: 1, maxAttempts: 3, leaseOwner: 'test' };
    const run = () => h!.services.modules.avatars.jobs[0]!.handler(job, { signal: new AbortController().signal, lastAttempt: false });
    const previews = () => sqlite.prepare('SELECT kind, user_id AS userId, status FROM jobs WHERE resource_id = ?').all(presenterId);
    const avatar = () => sqlite.prepare('SELECT status, finished_at AS finishedAt FROM resources WHERE id = ?').get(id);

    // A failure between the ending and the preview job: neither happens.
    sqlite.exec(`CREATE TRIGGER planted_preview_failure BEFORE INSERT ON jobs WHEN NEW.kind = 'presenter.preview' BEGIN SELECT RAISE(ABORT, 'planted'); END`);
    await expect(run()).rejects.toThrow(/planted/);
    expect(avatar()).toEqual({ status: 'started', finishedAt: null });
    expect(previews()).toEqual([]);
    expect(sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(u.id)).toEqual({ credits: 80 });

    // The attempt again: the avatar is done and, in the same state, its preview job is queued for its owner.
    sqlite.exec('DROP TRIGGER planted_preview_failure');
    await run();
    expect(avatar()).toMatchObject({ status: 'done' });
    expect(previews()).toEqual([{ kind: 'presenter.preview', userId: u.id, status: 'queued' }]);
  }, 60_000);
});
