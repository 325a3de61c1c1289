/**
 * The words the consent page shows for each verification step and for where a consent
 * stands (src/studio/assets/consent-checks.js), on records shaped as src/consents/verify.ts
 * writes them: every check passed and failed, an operator's review, expiry.
 */
import { describe, expect, it } from 'vitest';

interface Step { check: string; passed: boolean; measured: Record<string, unknown>; limit: Record<string, unknown>; note?: string }
interface Checks {
  CHECKS: { check: string; title: string }[];
  describeStep(step: Step, consent?: Record<string, unknown>): { state: string; text: string };
  outcomeOf(rec: Record<string, unknown>): { state: string; title: string; text: string; detail?: string };
  statusWords(rec: Record<string, unknown>): string;
}
const { CHECKS, describeStep, outcomeOf, statusWords } = (await import(new URL('../../src/studio/assets/consent-checks.js', import.meta.url).href)) as Checks;

const step = (check: string, passed: boolean, measured: Record<string, unknown> = {}, limit: Record<string, unknown> = {}, note?: string): Step => ({ check, passed, measured, limit, ...(note ? { note } : {}) });
const consent = (status: string, steps: Step[], extra: Record<string, unknown> = {}) => ({ id: 'cns_1', status, language: 'english', verification: { steps }, ...extra });

describe('the words of each check', () => {
  it('names the six checks of the verifier, in its order', () => {
    expect(CHECKS.map((c) => c.check)).toEqual(['decodes', 'sound', 'one_face', 'facing_camera', 'speech_length', 'words']);
  });

  it.each([
    [step('decodes', true, { duration_sec: 14.2, width: 320, height: 320 }), 'passed', '14.2 s long, 320×320.'],
    [step('decodes', false, { error: 'moov atom not found' }), 'failed', 'We could not play your video'],
    [step('decodes', false, { duration_sec: 2.1 }, { min_sec: 3, max_sec: 120 }), 'failed', 'Your video is 2.1 s long; it must be 3 s to 120 s.'],
    [step('sound', true, { has_audio: true, speech_sec: 11.7 }), 'passed', '11.7 s of speech heard.'],
    [step('sound', false, { has_audio: false, speech_sec: 0 }), 'failed', 'Your video has no sound'],
    [step('sound', false, { has_audio: true, speech_sec: 0.2 }), 'failed', 'We could not hear anyone speak'],
    [step('one_face', true, { frames: 16, one_face: 16, no_face: 0, several_faces: 0 }), 'passed', 'Your face was in 16 of the 16 moments'],
    [step('one_face', false, { frames: 16, one_face: 4, no_face: 0, several_faces: 12 }), 'failed', 'Someone else was in the picture in 12 of 16 moments'],
    [step('one_face', false, { frames: 16, one_face: 3, no_face: 13, several_faces: 0 }), 'failed', 'We could not see your face in 13 of 16 moments'],
    [step('facing_camera', false, { share: 0.4 }), 'failed', 'Look straight at the camera'],
    [step('speech_length', false, { speech_sec: 3 }, { expected_sec: [8, 32] }), 'failed', 'You spoke for 3 s; reading the whole statement takes about 8 s to 32 s. Read all of it'],
    [step('speech_length', false, { speech_sec: 50 }, { expected_sec: [8, 32] }), 'failed', 'Record just the statement'],
    [step('words', true, { recogniser: 'pocketsphinx', misses: 0 }), 'passed', 'Your name and the three passcode words were heard.'],
    [step('words', false, { recogniser: 'pocketsphinx', misses: 3 }), 'failed', 'Read it exactly as shown'],
    [step('words', false, { recogniser: null }, { review: 'operator' }, 'waiting for an operator review (mimic consents review)'), 'review', 'Speech recognition is not available for this language here'],
    [step('words', false, { recogniser: 'pocketsphinx', misses: 1 }, {}, 'one word not heard: waiting for an operator review (mimic consents review)'), 'review', 'One word was not heard clearly'],
  ])('%o: %s', (s, state, text) => {
    const d = describeStep(s);
    expect(d.state).toBe(state);
    expect(d.text).toContain(text);
  });
});

describe('the words check names what was not heard', () => {
  const rec = { name: 'Maria Lopez', passcode: ['garden', 'pencil', 'river'] };
  it.each([
    [{ name_found: [true, true], passcode_found: [false, true, false] }, 'We did not hear the passcode words garden and river.'],
    [{ name_found: [true, false], passcode_found: [true, true, true] }, 'We did not hear your name (Maria Lopez).'],
    [{ name_found: [false, false], passcode_found: [true, true, false] }, 'We did not hear your name (Maria Lopez) and the passcode word river.'],
  ])('%o', (measured, text) => {
    expect(describeStep(step('words', false, { recogniser: 'pocketsphinx', ...measured }), rec).text).toContain(text);
  });
});

describe('where a consent stands', () => {
  it('a verified consent', () => {
    expect(outcomeOf(consent('done', []))).toMatchObject({ state: 'done', title: 'Verified' });
    expect(statusWords(consent('done', []))).toBe('Verified');
  });

  it('a refusal gives the failed check\'s reason in words, and the service\'s description as the detail', () => {
    const rec = consent('error', [step('decodes', true), step('sound', true), step('one_face', false, { frames: 16, one_face: 2, no_face: 0, several_faces: 14 })], {
      error: { kind: 'ConsentFaceError', description: 'More than one face is visible in 14 of 16 sampled frames' },
    });
    expect(outcomeOf(rec)).toEqual({ state: 'refused', title: 'Not verified', text: expect.stringContaining('Record alone'), detail: 'More than one face is visible in 14 of 16 sampled frames' });
    expect(statusWords(rec)).toBe('Not verified');
  });

  it('an operator\'s review, pending and then rejected', () => {
    const words = step('words', false, { recogniser: null }, { review: 'operator' }, 'waiting for an operator review (mimic consents review)');
    const pending = consent('validating', [words], { verification: { steps: [words], review: { state: 'pending', reason: 'No offline speech recogniser for german here' } } });
    expect(outcomeOf(pending)).toMatchObject({ state: 'review', title: 'Waiting for an operator', detail: 'No offline speech recogniser for german here' });
    const rejected = consent('error', [words], { verification: { steps: [words], review: { state: 'rejected', reason: 'another name' } }, error: { kind: 'ConsentTextSimilarityError', description: 'An operator reviewed the consent video and found it does not match the statement: another name' } });
    expect(outcomeOf(rejected)).toMatchObject({ state: 'refused', text: expect.stringContaining('An operator watched your video') });
  });

  it('an expired statement, one being checked, one waiting for its video', () => {
    expect(outcomeOf(consent('error', [], { error: { kind: 'ConsentExpiredError', description: 'The consent expired at …' } }))).toMatchObject({ state: 'expired', title: 'Expired' });
    expect(statusWords(consent('validating', [step('decodes', true)]))).toBe('Being checked');
    expect(statusWords(consent('created', []))).toBe('Waiting for a video');
  });
});
