/**
 * The operator review queue (`mimic consents review`): a consent whose words no recogniser
 * here checks waits in `validating`; the operator lists it, then approves (done, webhook) or
 * rejects (error, webhook) it, each once, from the CLI against the service's data directory.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { mimicAsync } from '../helpers/cli.ts';
import type { ConsentDetails } from '../../src/consents/kind.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A consent as verification leaves one it could not hear: steps recorded, a review pending. */
async function pendingConsent(h: Harness, userId: string, webhook: string | undefined): Promise<string> {
  const lifecycle = h.services.modules.consents.deps.lifecycle;
  const id = lifecycle.newId(h.services.newId);
  const now = h.services.clock.now();
  const details: ConsentDetails = {
    language: 'german', text: 'Ich, [user name], bin einverstanden ... Mein Passcode lautet apfel birne kirsche.', passcode: ['apfel', 'birne', 'kirsche'],
    expiresAt: now + 30 * 60_000, steps: [],
  };
  await lifecycle.create({ id, userId, request: { language: 'german' }, details, maxAttempts: 1 });
  await lifecycle.advance(id, {
    from: 'created', to: 'validating', webhookUrl: webhook,
    details: {
      ...details, name: 'Anna Schmidt', sourceUrl: 'https://videos.example/c.mp4', uploadedAt: now, videoKey: `consents/${id}/video.mp4`,
      steps: [{ check: 'speech_length', passed: true, measured: { speech_sec: 11.2 }, limit: { expected_sec: [6, 25] } }],
      review: { state: 'pending', reason: 'No offline speech recogniser for german here' },
    } satisfies ConsentDetails,
  });
  return id;
}

describe('consents review', () => {
  it('lists pending consents, approves one (done, webhook queued) and rejects another (error), each once', async () => {
    h = harness();
    const env = { MIMIC_DATA_DIR: h.config.dataDir };
    const u = h.user();
    const a = await pendingConsent(h, u.id, 'https://hooks.example/consent');
    const b = await pendingConsent(h, u.id, undefined);

    const listed = await mimicAsync(['consents', 'review'], env);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.lines.map((l) => JSON.parse(l));
    expect(rows.map((r) => r.consent_id)).toEqual([a, b]);
    expect(rows[0]).toMatchObject({ user_id: u.id, language: 'german', name: 'Anna Schmidt', passcode: ['apfel', 'birne', 'kirsche'], measured: { speech_length: { speech_sec: 11.2 } } });
    expect(rows[0].statement).toContain('Anna Schmidt');

    const approved = await mimicAsync(['consents', 'approve', a], env);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.lines[0]!)).toEqual({ consent_id: a, decision: 'approved' });
    const shown = (await h.call('GET', `/consents/${a}`, { key: u.key })).body;
    expect(shown).toMatchObject({ status: 'done', verification: { review: { state: 'approved' } } });
    expect(shown.verified_at).toBeDefined();
    const hooks = sqliteOf(h.services.store).sqlite.prepare('SELECT event FROM webhook_messages WHERE resource_id = ?').all(a);
    expect(hooks).toEqual([{ event: 'consent.done' }]);

    expect((await mimicAsync(['consents', 'reject', b], env)).code).toBe(2);
    const rejected = await mimicAsync(['consents', 'reject', b, '--reason', 'the passcode is not said'], env);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect((await h.call('GET', `/consents/${b}`, { key: u.key })).body).toMatchObject({ status: 'error', error: { kind: 'ConsentTextSimilarityError' }, verification: { review: { state: 'rejected', reason: 'the passcode is not said' } } });

    // Decided: neither is pending any more, and a second decision is refused.
    expect((await mimicAsync(['consents', 'review'], env)).lines).toEqual([]);
    const twice = await mimicAsync(['consents', 'approve', a], env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/does not wait for a review/);
    expect((await mimicAsync(['consents', 'approve', 'cns_nothing'], env)).code).toBe(1);
  }, 120_000);
});
