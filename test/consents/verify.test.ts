/**
 * A consent video verified for real: the bundled ffmpeg, the face analyser, Silero VAD and
 * Debian's pocketsphinx on videos the suite makes itself (test/helpers/avatar-videos.ts).
 * Each step is on the record with what it measured; the webhook is signed like every other.
 */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { HEARD, consentWithPasscode, stored, videoSaying, webhookSuite } from './helpers.ts';

const suite = webhookSuite();

const STEPS = ['decodes', 'sound', 'one_face', 'facing_camera', 'speech_length', 'words'];

describe('consent verification', () => {
  it('verifies one person saying the statement with the name and passcode: done, every step measured, video and thumbnail kept, webhook signed', async () => {
    const { h, receiver } = suite;
    const u = h.user();
    const { id, text } = await consentWithPasscode(h, u.key, 'english', HEARD.passcode);
    const video = await videoSaying(text, HEARD.name);
    const res = await h.call('POST', `/consents/${id}`, { key: u.key, body: { name: HEARD.name, source_url: await stored(h, u.id, video, 'consent.mp4'), webhook: `${receiver.url}/consent` } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('validating');
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/consents/${id}`, { key: u.key })).body;
    expect(rec.status, JSON.stringify(rec.verification)).toBe('done');
    expect(rec.verification.steps.map((s: { check: string }) => s.check)).toEqual(STEPS);
    for (const s of rec.verification.steps) expect(s.passed, JSON.stringify(s)).toBe(true);
    const [decodes, sound, oneFace, facing, length, words] = rec.verification.steps;
    expect(decodes.measured).toMatchObject({ width: 512, height: 512 });
    expect(sound.measured.speech_sec).toBeGreaterThan(5);
    expect(oneFace.measured).toMatchObject({ frames: 16, one_face: 16, several_faces: 0 });
    expect(facing.measured.share).toBe(1);
    expect(length.measured.speech_sec).toBeGreaterThanOrEqual(length.limit.expected_sec[0]);
    expect(words.measured).toMatchObject({ recogniser: 'pocketsphinx', misses: 0, passcode_found: [true, true, true], name_found: [true, true] });
    expect(words.measured.similarity).toBeGreaterThanOrEqual(0.6);
    expect(rec.verified_at).toBeDefined();
    for (const url of [rec.video_url, rec.thumbnail_url]) expect((await h.app.request(new URL(url).pathname + new URL(url).search)).status).toBe(200);

    await h.services.modules.webhooks.dispatcher.runOnce();
    const got = receiver.received.find((r) => r.path === '/consent')!;
    const { secret } = (await h.call('GET', '/webhooks/secret', { key: u.key })).body;
    const body = new Webhook(secret).verify(got.body.toString(), got.headers as Record<string, string>) as Record<string, unknown>;
    expect(body).toMatchObject({ id, object: 'consent', status: 'done', name: HEARD.name });
  }, 600_000);

  it('sends a language with no recogniser here to an operator after the length check, with its webhook only at the decision', async () => {
    const { h, receiver } = suite;
    const u = h.user();
    const { id, text } = await consentWithPasscode(h, u.key, 'german', ['apfel', 'garten', 'wolke'].filter(() => true));
    const video = await videoSaying(text, 'Anna Schmidt', { language: 'german' });
    expect((await h.call('POST', `/consents/${id}`, { key: u.key, body: { name: 'Anna Schmidt', source_url: await stored(h, u.id, video, 'de.mp4'), webhook: `${receiver.url}/de` } })).status).toBe(200);
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/consents/${id}`, { key: u.key })).body;
    expect(rec.status).toBe('validating');
    expect(rec.verification.review).toMatchObject({ state: 'pending' });
    expect(rec.verification.review.reason).toMatch(/german/);
    const steps = rec.verification.steps;
    expect(steps.map((s: { check: string }) => s.check)).toEqual(STEPS);
    expect(steps.slice(0, 5).every((s: { passed: boolean }) => s.passed)).toBe(true);
    expect(steps[5]).toMatchObject({ check: 'words', passed: false, measured: { recogniser: null } });
    await h.services.modules.webhooks.dispatcher.runOnce();
    expect(receiver.received.filter((r) => r.path === '/de')).toHaveLength(0);
    // Its language list says so too.
    const langs = (await h.call('GET', '/consents/languages', { key: u.key })).body.languages;
    expect(langs.find((l: { name: string }) => l.name === 'english').recognised).toBe(true);
  }, 600_000);
});
