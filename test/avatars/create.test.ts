/**
 * A premium-plus avatar made for real: a consent verified from its video, 5.5 minutes of
 * footage of the same person checked (every check measured), trained on the CPU into a
 * presenter (its picture, idle loop, voice, talking preview), which then speaks in a clip
 * and can be renamed and deleted. Videos come from test/helpers/avatar-videos.ts.
 */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { avatarFootage } from '../helpers/avatar-videos.ts';
import { videoFacts } from '../helpers/video.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import { stored, webhookSuite } from '../consents/helpers.ts';
import { avatarBody, realConsent } from './helpers.ts';
import { storedFile } from '../media/stored-file.ts';

const suite = webhookSuite({ backend: createLocalBackend() });

const CHECKS = ['length', 'resolution', 'sound', 'silent_ending', 'idle_ending', 'one_person', 'facing_camera', 'same_person'];
const fetchable = async (url: string) => (await suite.h.app.request(new URL(url).pathname + new URL(url).search)).status;

describe('a premium-plus avatar', () => {
  it('is checked, trained into a presenter that speaks in a clip, renamed and deleted', async () => {
    const { h, receiver } = suite;
    const u = h.user({ credits: 100 });
    const consent = await realConsent(h, u);
    const footage = await stored(h, u.id, await avatarFootage({ variant: 'ok' }), 'footage.mp4');
    const created = await h.call('POST', '/clips/avatars', { key: u.key, body: avatarBody(consent, footage, { webhook: `${receiver.url}/avatar` }) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, presenter_id } = created.body;
    await h.services.worker.drain();

    const rec = (await h.call('GET', `/clips/avatars/${id}`, { key: u.key })).body;
    expect(rec.status, JSON.stringify(rec)).toBe('done');
    expect(rec.checks.map((c: { check: string }) => c.check)).toEqual(CHECKS);
    for (const c of rec.checks) expect(c.passed, JSON.stringify(c)).toBe(true);
    const byName = Object.fromEntries(rec.checks.map((c: { check: string }) => [c.check, c]));
    expect(byName.length.measured.duration_sec).toBeCloseTo(330, 0);
    expect(byName.silent_ending.measured.silent_sec).toBeGreaterThanOrEqual(30);
    expect(byName.idle_ending.measured.motion_mean).toBeLessThan(0.5);
    expect(byName.same_person.measured.median_similarity).toBeGreaterThanOrEqual(0.65);
    expect(rec.voice).toMatchObject({ type: 'flite', voice_id: 'en-US-flite-slt' });
    expect(rec.voice.pitch_hz).toBeGreaterThan(120);
    for (const url of [rec.image_url, rec.preview_url, rec.idle_video_url]) expect(await fetchable(url)).toBe(200);
    const idle = videoFacts(storedFile(h.services.mediaStore, u.id, `presenters/${presenter_id}/idle.mp4`)!);
    expect(idle).toMatchObject({ hasVideo: true, hasAudio: false, width: 512, height: 512 });

    // The presenter: listed after the built-ins, with its talking preview rendered by mimic.
    const listed = (await h.call('GET', '/clips/presenters?limit=100', { key: u.key })).body.presenters;
    const mine = listed.at(-1);
    expect(mine).toMatchObject({ presenter_id, name: 'Maria Lopez', gender: 'female', owner_id: u.id, voice: { type: 'flite', voice_id: 'en-US-flite-slt' }, is_streamable: true });
    expect(mine.talking_preview_url).not.toBeNull();
    expect(await fetchable(mine.talking_preview_url)).toBe(200);
    // Another user sees only the built-ins.
    const other = h.user();
    expect((await h.call('GET', `/clips/presenters/${presenter_id}`, { key: other.key })).status).toBe(404);

    // It speaks in a clip.
    const clip = await h.call('POST', '/clips', { key: u.key, body: { presenter_id, script: { type: 'text', input: 'Hello, this is my own avatar speaking.' }, config: { logo: false } } });
    expect(clip.status, JSON.stringify(clip.body)).toBe(201);
    await h.services.worker.drain();
    const done = (await h.call('GET', `/clips/${clip.body.id}`, { key: u.key })).body;
    expect(done.status, JSON.stringify(done.error)).toBe('done');
    const facts = videoFacts(storedFile(h.services.mediaStore, u.id, `clips/${clip.body.id}/result.mp4`)!);
    expect(facts).toMatchObject({ hasVideo: true, hasAudio: true, decodeErrors: '' });

    // It is a presenter of live clip streams too (the stream animates its picture).
    const stream = await h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id } });
    expect(stream.status, JSON.stringify(stream.body)).toBe(201);
    expect(stream.body.offer.sdp).toContain('m=video');
    expect((await h.call('DELETE', `/clips/streams/${stream.body.id}`, { key: u.key, body: { session_id: stream.body.session_id } })).status).toBe(200);
    expect((await h.call('POST', '/clips/streams', { key: other.key, body: { presenter_id } })).status).toBe(400);

    // The webhook said done, signed.
    await h.services.modules.webhooks.dispatcher.runOnce();
    const got = receiver.received.find((r) => r.path === '/avatar')!;
    const { secret } = (await h.call('GET', '/webhooks/secret', { key: u.key })).body;
    expect(new Webhook(secret).verify(got.body.toString(), got.headers as Record<string, string>)).toMatchObject({ id, object: 'avatar', status: 'done', presenter_id });

    // Renamed (a built-in is not), then deleted with its avatar and media.
    const renamed = await h.call('PATCH', `/clips/presenters/${presenter_id}`, { key: u.key, body: { name: 'Maria' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.presenters[0].name).toBe('Maria');
    expect((await h.call('GET', `/clips/avatars/${id}`, { key: u.key })).body.name).toBe('Maria');
    expect((await h.call('PATCH', '/clips/presenters/grace-Hq4mW8zL2c', { key: u.key, body: { name: 'Mine' } })).status).toBe(403);
    expect((await h.call('PATCH', `/clips/presenters/${presenter_id}`, { key: other.key, body: { name: 'Stolen' } })).status).toBe(404);
    expect((await h.call('DELETE', `/clips/presenters/${presenter_id}`, { key: other.key })).status).toBe(404);
    expect((await h.call('DELETE', `/clips/presenters/${presenter_id}`, { key: u.key })).body).toEqual({ deleted: presenter_id });
    expect((await h.call('GET', `/clips/presenters/${presenter_id}`, { key: u.key })).status).toBe(404);
    expect((await h.call('GET', `/clips/avatars/${id}`, { key: u.key })).status).toBe(404);
    expect(storedFile(h.services.mediaStore, u.id, `presenters/${presenter_id}/image.png`)).toBeNull();
    // Its consent stays used: a consent makes one avatar.
    expect((await h.call('GET', `/consents/${consent}`, { key: u.key })).body.used_by).toBe(id);
  }, 900_000);
});
