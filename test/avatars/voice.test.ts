/**
 * The voice a trained avatar speaks with: the closest embedded voice (language, gender, the
 * pitch measured in the footage), or a clone of the person's voice when a provider that clones
 * is configured; a failed clone falls back, and a cloned voice is deleted with its avatar.
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';
import { avatarVoice, chooseAvatarVoice, forgetClonedVoice } from '../../src/avatars/voice.ts';
import type { VoiceCatalogue } from '../../src/voices/catalogue.ts';
import { VOICES } from '../../src/voices/contract.ts';
import type { CloneRequest, VoiceProvider } from '../../src/voices/interface.ts';

let h: Harness;
let voices: VoiceCatalogue;
beforeAll(() => {
  h = harness();
  voices = h.services.find(VOICES)!;
});
afterAll(async () => {
  await h?.close();
});

describe('the closest embedded voice', () => {
  it('speaks the consent\'s language, of the avatar\'s gender, nearest the measured pitch', async () => {
    const pick = async (language: string, gender: 'male' | 'female', pitchHz: number | null) => (await chooseAvatarVoice(voices, { language, gender, pitchHz })).voiceId;
    expect(await pick('english', 'female', 180)).toBe('en-US-flite-slt');
    expect(await pick('english', 'male', 135)).toBe('en-GB-flite-awb');
    expect(await pick('english', 'male', 100)).toBe('en-US-flite-rms');
    expect(await pick('english', 'male', 85)).toBe('en-US-flite-kal');
    expect(await pick('german', 'male', 110)).toMatch(/^de-.*-espeak-male$/);
    expect(await pick('french', 'female', null)).toMatch(/^fr-.*-espeak-female$/);
    const filipino = await chooseAvatarVoice(voices, { language: 'filipino', gender: 'female', pitchHz: 200 });
    expect(filipino.reason).toMatch(/no embedded voice speaks filipino/);
    expect((await chooseAvatarVoice(undefined, { language: 'english', gender: 'male', pitchHz: 100 })).voiceId).toBe('en-US-flite-rms');
  });
});

describe('a cloned voice', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mimic-avatar-voice-'));
  const footage = join(dir, 'footage.mp4');
  beforeAll(async () => {
    // 200 s of tone as the footage's sound: longer than the two minutes a sample may take.
    const made = await runFfmpeg(['-y', '-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=180:duration=200', '-f', 'lavfi', '-i', 'color=c=gray:s=64x64:d=200', '-shortest', '-c:a', 'aac', '-c:v', 'libx264', '-preset', 'ultrafast', footage]);
    expect(made.code).toBe(0);
  });

  function cloningCatalogue(clone: (r: CloneRequest) => Promise<{ voiceId: string }>) {
    const calls: CloneRequest[] = [];
    const deleted: string[] = [];
    const cloner: VoiceProvider = {
      type: 'elevenlabs', voices: async () => [], synthesize: async () => { throw new Error('not here'); },
      clone: async (r) => {
        calls.push(r);
        // The sample exists while the provider reads it: about two minutes of 16 kHz mono.
        expect(statSync(r.samplePath).size).toBeGreaterThan(119 * 32_000);
        return clone(r);
      },
      deleteClone: async (id) => void deleted.push(id),
    };
    return { catalogue: { ...voices, cloner: () => cloner } as VoiceCatalogue, calls, deleted };
  }
  const want = (workDir: string) => ({ name: 'Maria Lopez', language: 'english', gender: 'female' as const, pitchHz: 181, footagePath: footage, speech: { fromSec: 0, toSec: 190 }, workDir, signal: new AbortController().signal });
  const log = { warn: () => {} };

  it('is made from up to two minutes of the footage\'s speech when a provider clones, and deleted with the avatar', async () => {
    const { catalogue, calls, deleted } = cloningCatalogue(async () => ({ voiceId: 'cloned123' }));
    const voice = await avatarVoice({ voices: catalogue, log }, want(mkdtempSync(join(dir, 'w-'))));
    expect(voice).toMatchObject({ type: 'elevenlabs', voiceId: 'cloned123', cloned: true, pitchHz: 181 });
    expect(voice.reason).toMatch(/cloned from 120 s/);
    expect(calls[0]).toMatchObject({ name: 'mimic Maria Lopez', gender: 'female', locale: 'en' });
    await forgetClonedVoice(catalogue, voice, log);
    expect(deleted).toEqual(['cloned123']);
    // An embedded voice is never "deleted" at a provider.
    await forgetClonedVoice(catalogue, { type: 'flite', voiceId: 'en-US-flite-slt' }, log);
    expect(deleted).toEqual(['cloned123']);
  });

  it('falls back to the closest embedded voice when cloning fails, saying why', async () => {
    const warned: string[] = [];
    const { catalogue } = cloningCatalogue(async () => {
      throw new Error('elevenlabs answered 401');
    });
    const voice = await avatarVoice({ voices: catalogue, log: { warn: (m: string) => void warned.push(m) } }, want(mkdtempSync(join(dir, 'w-'))));
    expect(voice).toMatchObject({ type: 'flite', voiceId: 'en-US-flite-slt' });
    expect(voice.cloned).toBeUndefined();
    expect(voice.reason).toMatch(/cloning with elevenlabs failed: elevenlabs answered 401/);
    expect(warned).toHaveLength(1);
  });
});
