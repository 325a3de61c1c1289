/**
 * The identity review band (`mimic avatars review`): an avatar whose footage face scored
 * between the review and accept thresholds waits in `validating`; approving queues its
 * training, rejecting ends it `rejected` with its credits back and its consent free.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { mimicAsync } from '../helpers/cli.ts';
import type { AvatarDetails } from '../../src/avatars/kind.ts';
import { verifiedConsent } from './helpers.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** An avatar as the checks leave one in the review band. */
async function inReview(h: Harness, user: { id: string; key: string }): Promise<string> {
  const consent = await verifiedConsent(h, user.id);
  const res = await h.call('POST', '/clips/avatars', { key: user.key, body: { source_url: 'https://videos.example/f.mp4', name: 'Maria Lopez', gender: 'female', consent_id: consent, webhook: 'https://hooks.example/a' } });
  const id = res.body.id as string;
  const lifecycle = h.services.modules.avatars.deps.lifecycle;
  // The queued job would fetch the footage: this test decides the review only.
  await h.services.queue.cancelFor(id);
  await lifecycle.moveTo(id, 'validating');
  const row = (await lifecycle.getById(id))!;
  const details: AvatarDetails = {
    ...(JSON.parse(row.details) as AvatarDetails),
    checks: [{ check: 'same_person', passed: false, measured: { median_similarity: 0.55, pairs: 400 }, limit: { accept_at_least: 0.65, review_at_least: 0.45 }, note: 'in the review band' }],
    windows: { idle: { fromSec: 290, toSec: 330 }, speech: { fromSec: 0, toSec: 289.5 } },
    review: { state: 'pending', reason: 'similar but not clearly the same person' },
  };
  await lifecycle.setDetails(id, details);
  return id;
}

describe('avatars review', () => {
  it('lists avatars in the review band; approve queues training, reject ends rejected with credits and consent back', async () => {
    h = harness();
    const env = { MIMIC_DATA_DIR: h.config.dataDir };
    const u = h.user({ credits: 100 });
    const a = await inReview(h, u);
    const b = await inReview(h, u);
    expect(sqliteOf(h.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(u.id)).toEqual({ credits: 60 });

    const listed = await mimicAsync(['avatars', 'review'], env);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.lines.map((l) => JSON.parse(l));
    expect(rows.map((r) => r.avatar_id)).toEqual([a, b]);
    expect(rows[0]).toMatchObject({ user_id: u.id, name: 'Maria Lopez', same_person: { median_similarity: 0.55 } });

    const approved = await mimicAsync(['avatars', 'approve', a], env);
    expect(approved.code, approved.stderr).toBe(0);
    const recA = (await h.call('GET', `/clips/avatars/${a}`, { key: u.key })).body;
    expect(recA).toMatchObject({ status: 'validating', review: { state: 'approved' } });
    const jobs = sqliteOf(h.services.store).sqlite.prepare("SELECT kind FROM jobs WHERE resource_id = ? AND status = 'queued'").all(a);
    expect(jobs).toEqual([{ kind: 'avatar.create' }]);

    const rejected = await mimicAsync(['avatars', 'reject', b, '--reason', 'another person'], env);
    expect(rejected.code, rejected.stderr).toBe(0);
    const recB = (await h.call('GET', `/clips/avatars/${b}`, { key: u.key })).body;
    expect(recB).toMatchObject({ status: 'rejected', review: { state: 'rejected', reason: 'another person' } });
    expect(sqliteOf(h.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(u.id)).toEqual({ credits: 80 });
    expect((await h.call('GET', `/consents/${recB.consent_id}`, { key: u.key })).body.used_by).toBeNull();
    expect(sqliteOf(h.services.store).sqlite.prepare('SELECT event FROM webhook_messages WHERE resource_id = ?').all(b)).toEqual([{ event: 'avatar.rejected' }]);

    expect((await mimicAsync(['avatars', 'review'], env)).lines).toEqual([]);
    expect((await mimicAsync(['avatars', 'reject', a, '--reason', 'late'], env)).code).toBe(1);
  }, 120_000);
});
