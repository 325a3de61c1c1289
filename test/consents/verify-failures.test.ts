/**
 * Consent videos that must not verify, one per step: no video, no sound, no face, two faces,
 * wrong words, wrong name. Each ends in `error` naming the step, with the steps before it
 * passed and the failed one's measurement on the record; the webhook tells of the error.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEARD, consentWithPasscode, stored, videoSaying, webhookSuite } from './helpers.ts';

const suite = webhookSuite();

const OTHER_WORDS = 'Every morning the baker opens the little shop by the station, sells warm bread and coffee to the workers, and closes at noon to walk his dog.';

/** Uploads `file` to a new English consent (passcode known) and runs verification; the record. */
async function verify(name: string, make: (text: string) => Promise<string>) {
  const { h, receiver } = suite;
  const u = h.user();
  const { id, text } = await consentWithPasscode(h, u.key, 'english', HEARD.passcode);
  const res = await h.call('POST', `/consents/${id}`, { key: u.key, body: { name: HEARD.name, source_url: await stored(h, u.id, await make(text), `${name}.mp4`), webhook: `${receiver.url}/${name}` } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await h.services.worker.drain();
  return (await h.call('GET', `/consents/${id}`, { key: u.key })).body;
}

/** The record failed at `check`, every step before it passed. */
function failedAt(rec: any, check: string, kind: string) {
  expect(rec.status, JSON.stringify(rec)).toBe('error');
  expect(rec.error.kind).toBe(kind);
  const steps = rec.verification.steps as { check: string; passed: boolean }[];
  expect(steps.at(-1)).toMatchObject({ check, passed: false });
  expect(steps.slice(0, -1).every((s) => s.passed)).toBe(true);
  return steps.at(-1) as any;
}

describe('consent verification refuses', () => {
  it('a file that is not a video', async () => {
    const { h, receiver } = suite;
    const dir = mkdtempSync(join(tmpdir(), 'mimic-consent-'));
    const file = join(dir, 'bad.mp4');
    writeFileSync(file, Buffer.from('this is not a video at all'.repeat(100)));
    const rec = await verify('junk', async () => file);
    const step = failedAt(rec, 'decodes', 'ConsentVideoError');
    expect(step.measured.error).toBeTruthy();
  }, 300_000);

  it('a video without sound', async () => {
    const { h, receiver } = suite;
    const rec = await verify('mute', (text) => videoSaying(text, HEARD.name, { variant: 'no-sound' }));
    const step = failedAt(rec, 'sound', 'ConsentVideoError');
    expect(step.measured.has_audio).toBe(false);
    expect(rec.error.description).toMatch(/no sound/);
  }, 300_000);

  it('a video where no face is visible', async () => {
    const { h, receiver } = suite;
    const rec = await verify('noface', (text) => videoSaying(text, HEARD.name, { variant: 'no-face' }));
    const step = failedAt(rec, 'one_face', 'ConsentFaceError');
    expect(step.measured.no_face).toBe(16);
  }, 300_000);

  it('a video with two people', async () => {
    const { h, receiver } = suite;
    const rec = await verify('two', (text) => videoSaying(text, HEARD.name, { variant: 'two-faces' }));
    const step = failedAt(rec, 'one_face', 'ConsentFaceError');
    expect(step.measured.several_faces).toBeGreaterThan(8);
    expect(rec.error.description).toMatch(/More than one face/);
  }, 300_000);

  it('a video saying other words', async () => {
    const { h, receiver } = suite;
    const rec = await verify('words', () => videoSaying(OTHER_WORDS, HEARD.name));
    const step = failedAt(rec, 'words', 'ConsentTextSimilarityError');
    expect(step.measured.similarity).toBeLessThan(0.6);
  }, 300_000);

  it('a video saying the statement with another name', async () => {
    const { h, receiver } = suite;
    const rec = await verify('name', (text) => videoSaying(text, 'Oliver Thompson'));
    const step = failedAt(rec, 'words', 'ConsentTextSimilarityError');
    expect(step.measured.name_found).toEqual([false, false]);
    expect(step.measured.passcode_found).toEqual([true, true, true]);
    expect(rec.error.description).toContain("the name 'Maria Lopez' ");
    expect(rec.error.description).toContain('not heard');
    await h.services.modules.webhooks.dispatcher.runOnce();
    expect(receiver.received.filter((r) => r.path === '/name')).toHaveLength(1);
    expect(JSON.parse(receiver.received.find((r) => r.path === '/name')!.body.toString())).toMatchObject({ status: 'error', error: { kind: 'ConsentTextSimilarityError' } });
  }, 300_000);
});
