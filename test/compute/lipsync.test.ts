/**
 * The lip-sync measure of issue 9, point 4.2: the file's timeline (so the measured mouth
 * lines up with the phoneme timings), and the check that the lips close on p, b and m, on
 * made-up mouth curves and on real clips rendered from a Flite voice, where deliberately
 * wrong visemes must fail it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpeechCue } from '../../src/compute/interface.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import {
  alignAudio, bilabialClosure, fileTimeline, leadingCopies, LIP_SYNC_GOALS, lipSyncMisses, measureLipSync, parseFramecrc, speechEnvelope,
} from '../../src/compute/local/lipsync.ts';
import { mouthFromCues } from '../../src/compute/local/visemes.ts';
import { int16Wav } from '../../src/speaking/speech.ts';
import { BUILT_IN_PRESENTERS } from '../../src/presenters/built-in.ts';
import { createEspeakProvider } from '../../src/voices/espeak/index.ts';
import { createFliteProvider } from '../../src/voices/flite/index.ts';
import { VoicePool } from '../../src/voices/pool.ts';
import { renderRequest } from '../helpers/video.ts';

const cue = (phoneme: string, startMs: number, endMs: number): SpeechCue => ({ phoneme, alphabet: 'arpabet', startMs, endMs });

/** Cues one after the other from (phoneme, ms) pairs, Flite-like: short bilabials, long vowels. */
function say(...parts: [string, number][]): SpeechCue[] {
  let t = 0;
  return parts.map(([p, ms]) => cue(p, t, (t += ms)));
}

// "bob a map, pam, maybe" with bilabials of 30 to 90 ms, most shorter than two frames.
const CUES = say(
  ['pau', 200], ['b', 40], ['aa', 180], ['b', 60], ['ax', 50], ['m', 70], ['ae', 200], ['p', 90], ['pau', 250],
  ['p', 30], ['ae', 190], ['m', 80], ['m', 60], ['ey', 150], ['b', 50], ['iy', 160], ['pau', 300],
);
const FRAMES = 85;
/** Loudness per frame: speech where a phoneme is sounding, silence in pauses. */
const LOUD = Array.from({ length: FRAMES }, (_, f) => (CUES.find((c) => c.startMs <= (f + 0.5) * 40 && c.endMs > (f + 0.5) * 40)?.phoneme === 'pau' ? 0 : 0.8));
const mouthOf = (cues: SpeechCue[]) => mouthFromCues(cues, FRAMES, 25, LOUD).mouth;

describe('the closure on p, b and m, on mouth curves', () => {
  it('passes lips that close on every bilabial: deepest frame shut, open vowels wide', () => {
    const c = bilabialClosure(mouthOf(CUES), 25, CUES);
    expect(c.count).toBe(8);
    expect(c.vowels).toBe(3); // aa, ae, ae, and not the schwa (ax), ey or iy
    expect(c.bilabial).toBe(0);
    expect(c.vowel).toBeGreaterThan(0.6);
    expect(c.ratio).toBe(0);
    expect(c.closedShare).toBe(1);
    expect(lipSyncMisses({ offsetMs: 0 }, c)).toEqual([]);
  });

  it('fails lips made from wrong visemes: bilabials spoken as open vowels', () => {
    const wrong = CUES.map((c) => (['p', 'b', 'm'].includes(c.phoneme) ? { ...c, phoneme: 'aa' } : c));
    const c = bilabialClosure(mouthOf(wrong), 25, CUES);
    expect(c.ratio).toBeGreaterThan(0.5);
    expect(c.closedShare).toBeLessThan(0.5);
    expect(lipSyncMisses({ offsetMs: 0 }, c).join('; ')).toMatch(/as open as on open vowels.*% of p, b, m close/);
  });

  it('fails a mouth that does not move, and one that moves with no regard to the sounds', () => {
    expect(lipSyncMisses({ offsetMs: 0 }, bilabialClosure(Array(FRAMES).fill(0), 25, CUES))).not.toEqual([]);
    const babble = Array.from({ length: FRAMES }, (_, f) => LOUD[f]! * (0.5 + 0.4 * Math.sin(f * 1.3)));
    const c = bilabialClosure(babble, 25, CUES);
    expect(c.closedShare).toBeLessThan(LIP_SYNC_GOALS.minClosedShare);
    expect(lipSyncMisses({ offsetMs: 0 }, c)).not.toEqual([]);
  });

  it('fails a mouth two frames late on its cues: what the file\'s start delay did to the old measure', () => {
    const mouth = mouthOf(CUES);
    const late = [0, 0, ...mouth.slice(0, -2)];
    const c = bilabialClosure(late, 25, CUES);
    expect(c.closedShare).toBeLessThan(LIP_SYNC_GOALS.minClosedShare);
  });

  it('fails an offset beyond ±40 ms even when the lips close', () => {
    const c = bilabialClosure(mouthOf(CUES), 25, CUES);
    expect(lipSyncMisses({ offsetMs: 60 }, c)).toEqual(['audio-visual offset 60.0 ms is beyond ±40 ms']);
    expect(lipSyncMisses({ offsetMs: -41 }, c)).toHaveLength(1);
  });
});

describe('the file\'s timeline', () => {
  const CRC = [
    '#tb 0: 1/12800', '#media_type 0: video', '#tb 1: 1/16000', '#media_type 1: audio',
    '0,          0,       1024,      512,    51371, 0x0aa19058',
    '1,        256,        256,     1024,      323, 0xacc58aaf',
    '0,        512,       2048,      512,      345, 0x98efa7c4, F=0x0',
    '0,       1024,       1536,      512,       30, 0x8fe90c12, F=0x0',
    '1,       1280,       1280,     1024,      368, 0x118fa176',
  ].join('\n');

  it('reads when the first frame shows and the first audio plays, and counts the frames', () => {
    expect(parseFramecrc(CRC)).toEqual({ videoStart: 0.08, audioStart: 0.016, videoFrames: 3 });
    expect(parseFramecrc(CRC.split('\n').filter((l) => !l.startsWith('1,')).join('\n'))).toEqual({ videoStart: 0.08, audioStart: undefined, videoFrames: 3 });
    expect(() => parseFramecrc('#tb 0: 1/12800\n')).toThrow(/no frames/);
  });

  it('counts the copies of the first frame the tracker decodes before the video starts', () => {
    const timeline = { videoStart: 0.08, audioStart: 0.016, videoFrames: 82 };
    expect(leadingCopies(84, timeline, 25)).toBe(2);
    // A tracker that stopped at 60 s: from the start times (64 ms is 1.6 frames).
    expect(leadingCopies(1500, { ...timeline, videoFrames: 2000 }, 25)).toBe(2);
    expect(leadingCopies(82, { videoStart: 0, audioStart: 0, videoFrames: 82 }, 25)).toBe(0);
    expect(leadingCopies(40, { videoStart: 0, audioStart: 0.05, videoFrames: 82 }, 25)).toBe(0);
  });

  it('moves the audio so that its sample 0 plays with the first frame', () => {
    const pcm = { sampleRate: 16_000, samples: Float32Array.from({ length: 3000 }, (_, i) => i) };
    expect(alignAudio(pcm, { videoStart: 0.08, audioStart: 0.016, videoFrames: 3 }).samples[0]).toBe(1024);
    const early = alignAudio(pcm, { videoStart: 0, audioStart: 0.01, videoFrames: 3 }).samples;
    expect([early[159], early[160]]).toEqual([0, 0]);
    expect(early.length).toBe(3160);
    expect(alignAudio(pcm, { videoStart: 0.08, videoFrames: 3 })).toBe(pcm);
  });

  it('gives the envelope of a sound where it sounds, unsmoothed', () => {
    const samples = new Float32Array(16_000);
    samples.fill(0.5, 6400, 9600); // 0.4 s to 0.6 s
    const env = speechEnvelope({ sampleRate: 16_000, samples }, 25);
    expect(env).toHaveLength(25);
    expect(env.map((v, f) => (v > 0.5 ? f : -1)).filter((f) => f >= 0)).toEqual([10, 11, 12, 13, 14]);
    expect(env[15]).toBe(0);
  });
});

describe('on real clips, rendered from the embedded voices', () => {
  // Dense in p, b and m, and with open vowels to compare with.
  const SCRIPT = 'Bobby bought a big map. Pam made maple pie.';
  let dir: string;
  let pool: VoicePool;
  const backend = createLocalBackend();
  let wav: string;
  let cues: SpeechCue[];
  const grace = BUILT_IN_PRESENTERS.find((p) => p.name === 'Grace')!;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mimic-lipsync-'));
    pool = new VoicePool({ size: 1, warm: false });
    const speech = await createFliteProvider({ pool }).synthesize({ text: SCRIPT, voiceId: 'en-US-flite-slt' });
    wav = join(dir, 'speech.wav');
    await writeFile(wav, int16Wav(speech.pcm, speech.sampleRate));
    cues = speech.phonemes;
  });
  afterAll(async () => {
    await backend.close();
    await pool.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Renders Grace speaking the script with the mouth made from `driven`, and measures the file against the true cues. */
  async function renderAndMeasure(name: string, driven: SpeechCue[], audio = wav, truth = cues) {
    // With the HLS preview beside it, as a clip is rendered (the file then starts its video 80 ms in).
    const previewDir = join(dir, `preview-${name}`);
    await mkdir(previewDir);
    const req = renderRequest(dir, { name, sourcePath: grace.image, mute: false, previewDir, driver: { kind: 'speech', audioPath: audio, cues: driven, seed: 'lipsync-test' } });
    await backend.run('animation.render', req);
    const sync = await measureLipSync(req.outputPath);
    const closure = bilabialClosure(sync.mouth, sync.fps, truth);
    return { sync, closure, misses: lipSyncMisses(sync, closure), timeline: await fileTimeline(req.outputPath) };
  }

  it('closes the lips on p, b and m, in time: clearly inside the goals', async () => {
    const { sync, closure, misses, timeline } = await renderAndMeasure('right', cues);
    // The file starts its video after its audio's first packet; the measure follows the file's times.
    expect(timeline.videoStart).toBeGreaterThan(timeline.audioStart!);
    expect(sync.frames).toBe(timeline.videoFrames);
    expect(misses).toEqual([]);
    expect(closure.count).toBeGreaterThanOrEqual(10);
    expect(closure.vowels).toBeGreaterThanOrEqual(4);
    expect(closure.vowel).toBeGreaterThan(0.4);
    expect(closure.ratio).toBeLessThan(LIP_SYNC_GOALS.maxClosureRatio / 2.5);
    expect(closure.closedShare).toBeGreaterThanOrEqual(0.9);
    expect(Math.abs(sync.offsetMs)).toBeLessThanOrEqual(30);
    expect(sync.correlation).toBeGreaterThan(0.3);
  }, 240_000);

  it('fails when the bilabials are rendered as open vowels', async () => {
    const wrong = cues.map((c) => (['p', 'b', 'm'].includes(c.phoneme) ? { ...c, phoneme: 'aa' } : c));
    const { closure, misses } = await renderAndMeasure('bilabials-open', wrong);
    expect(closure.ratio).toBeGreaterThan(0.4);
    expect(closure.closedShare).toBeLessThan(0.5);
    expect(misses.join('; ')).toMatch(/as open as on open vowels/);
  }, 240_000);

  it('fails when the mouth runs 120 ms late on the sound', async () => {
    const late = cues.map((c) => ({ ...c, startMs: c.startMs + 120, endMs: c.endMs + 120 }));
    const { sync, misses } = await renderAndMeasure('late', late);
    expect(sync.offsetMs).toBeGreaterThan(60);
    expect(misses.join('; ')).toMatch(/audio-visual offset/);
  }, 240_000);

  it('passes an eSpeak voice too (IPA timings)', async () => {
    const speech = await createEspeakProvider({ pool }).synthesize({ text: SCRIPT, voiceId: 'en-US-espeak-female' });
    const audio = join(dir, 'espeak.wav');
    await writeFile(audio, int16Wav(speech.pcm, speech.sampleRate));
    expect(speech.phonemes.every((c) => c.alphabet === 'ipa')).toBe(true);
    const { closure, misses } = await renderAndMeasure('espeak', speech.phonemes, audio, speech.phonemes);
    expect(misses).toEqual([]);
    expect(closure.count).toBeGreaterThanOrEqual(10);
    expect(closure.vowels).toBeGreaterThanOrEqual(4);
    expect(closure.ratio).toBeLessThan(0.1);
  }, 240_000);
});
