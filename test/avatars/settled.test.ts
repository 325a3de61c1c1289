/**
 * An avatar's live events end only once its talking preview is there or could not be made
 * (`avatarSettled`, the `settled` of the avatar kind): a page that followed the avatar then
 * shows the presenter with a preview that plays at once. The avatar is brought to `done`
 * through its lifecycle, as training leaves it, with its preview job queued; nothing renders.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { sseEvents } from '../helpers/sse.ts';
import { verifiedConsent } from './helpers.ts';
import { avatarKeys } from '../../src/avatars/train.ts';
import { PREVIEW_JOB } from '../../src/clips/contract.ts';
import type { AvatarResult } from '../../src/avatars/kind.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A done avatar of a new user, its preview job queued (not run: the harness's worker runs only when drained). */
async function doneAvatar(h: Harness) {
  const u = h.user({ credits: 50 });
  const consent = await verifiedConsent(h, u.id);
  const made = await h.call('POST', '/clips/avatars', { key: u.key, body: { source_url: 'https://videos.example/f.mp4', name: 'Maria Lopez', gender: 'female', consent_id: consent } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const { id, presenter_id } = made.body as { id: string; presenter_id: string };
  const lifecycle = h.services.modules.avatars.deps.lifecycle;
  await h.services.queue.cancelFor(id);
  await lifecycle.start(id);
  const result: AvatarResult = {
    name: 'Maria Lopez', voice: { type: 'flite', voiceId: 'en-US-flite-slt', pitchHz: 170, reason: 'test' }, referenceSec: 300, loopSec: 2, size: 512,
    keys: avatarKeys(presenter_id), trainedAt: h.services.clock.now(),
  };
  expect(await lifecycle.finish(id, result, 'done', { kind: PREVIEW_JOB, resourceId: presenter_id, maxAttempts: 1 })).toBe(true);
  return { u, id, presenter_id, talking: result.keys.talking };
}

/** Follows the avatar's events until the stream closes; answers their names. */
async function follow(h: Harness, key: string, id: string): Promise<string[]> {
  const res = await h.app.request(`/clips/avatars/${id}/events`, { headers: { authorization: `Basic ${key}` } });
  expect(res.status).toBe(200);
  const seen: string[] = [];
  for await (const e of sseEvents(res.body!)) {
    seen.push(e.event);
  }
  return seen;
}

describe('an avatar\'s live events', () => {
  it('do not end while its talking preview is on its way; they end once it is stored', async () => {
    h = harness();
    const { u, id, talking } = await doneAvatar(h);
    const lifecycle = h.services.modules.avatars.deps.lifecycle;
    expect((await lifecycle.snapshot(u.id, id))!.settled).toBe(false);
    const ended = follow(h, u.key, id);
    // Still following after several polls of the record: no end yet.
    const quiet = await Promise.race([ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('following'), 1500))]);
    expect(quiet).toBe('following');
    await h.services.media.putBytes(u.id, talking, Buffer.from('not really an mp4'), 'video/mp4');
    expect((await lifecycle.snapshot(u.id, id))!.settled).toBe(true);
    expect(await ended).toEqual(['record', 'end']);
  });

  it('end once the preview job has failed for good, without a preview', async () => {
    h = harness();
    const { u, id } = await doneAvatar(h);
    const lifecycle = h.services.modules.avatars.deps.lifecycle;
    expect((await lifecycle.snapshot(u.id, id))!.settled).toBe(false);
    const { presenter_id } = (await h.call('GET', `/clips/avatars/${id}`, { key: u.key })).body;
    // Its preview job runs out of attempts (other jobs the service queued are finished on the way).
    for (let i = 0; i < 100; i++) {
      const job = await h.services.queue.claim('test-owner', 60_000);
      expect(job, 'the preview job is queued').not.toBeNull();
      if (job!.kind === PREVIEW_JOB && job!.resourceId === presenter_id) {
        await h.services.queue.fail(job!.id, 'test-owner', 'the renderer broke');
        break;
      }
      await h.services.queue.complete(job!.id, 'test-owner');
    }
    expect((await lifecycle.snapshot(u.id, id))!.settled).toBe(true);
    expect(await follow(h, u.key, id)).toEqual(['record', 'end']);
  });

  it('end at once for an avatar that failed, whose preview never comes', async () => {
    h = harness();
    const u = h.user({ credits: 50 });
    const consent = await verifiedConsent(h, u.id);
    const made = await h.call('POST', '/clips/avatars', { key: u.key, body: { source_url: 'https://videos.example/f.mp4', name: 'Maria Lopez', gender: 'female', consent_id: consent } });
    await h.services.modules.avatars.deps.lifecycle.fail(made.body.id, 'FootageError', 'too short');
    expect(await follow(h, u.key, made.body.id)).toEqual(['record', 'end']);
  });
});
