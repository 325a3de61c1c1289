/**
 * The generated test videos (test/helpers/avatar-videos.ts) are what the consent and avatar
 * tests assume: a consent video as long as its speech, with sound (or none), 512x512 at 25
 * fps; footage of the asked length whose ending is digitally silent and still; and the cache
 * hands out the same finished file again.
 */
import { readdir, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';
import { avatarFootage, CACHE_DIR, consentVideo } from './avatar-videos.ts';
import { videoFacts } from './video.ts';

const TEXT = 'I, Jane Doe, agree that mimic may make an avatar of me. My passcode is apple river candle.';

/** Where ffmpeg hears silence (below -50 dB for 2 s or more): [start, end] in seconds. */
async function silences(file: string): Promise<[number, number][]> {
  const { stderr } = await runFfmpeg(['-i', file, '-vn', '-af', 'silencedetect=noise=-50dB:d=2', '-f', 'null', '-']);
  const starts = [...stderr.matchAll(/silence_start: ([\d.]+)/g)].map((m) => Number(m[1]));
  const ends = [...stderr.matchAll(/silence_end: ([\d.]+)/g)].map((m) => Number(m[1]));
  return starts.map((s, i) => [s, ends[i] ?? Infinity]);
}

/** Mean and largest luma difference between consecutive frames of `seconds` from `from`. */
async function motion(file: string, from: number, seconds: number): Promise<{ mean: number; max: number }> {
  const { stdout } = await runFfmpeg([
    '-v', 'error', '-ss', String(from), '-t', String(seconds), '-i', file, '-an',
    '-vf', 'tblend=all_mode=difference,signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-', '-f', 'null', '-',
  ]);
  const values = [...stdout.toString().matchAll(/YAVG=([\d.]+)/g)].map((m) => Number(m[1]));
  expect(values.length).toBeGreaterThan(seconds * 20);
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, max: Math.max(...values) };
}

describe('consent videos', () => {
  it('says the text: 512x512 at 25 fps, with sound, as long as the speech; the cache hands the same file back', async () => {
    const path = await consentVideo({ text: TEXT });
    const facts = videoFacts(path);
    expect(facts.decodeErrors).toBe('');
    expect([facts.width, facts.height, facts.fps]).toEqual([512, 512, 25]);
    expect(facts.hasAudio).toBe(true);
    // About 6 s of speech with 0.5 s before and 0.7 s after.
    expect(facts.durationSec).toBeGreaterThan(5);
    expect(facts.durationSec).toBeLessThan(15);
    expect(Math.abs(facts.frames / 25 - facts.durationSec)).toBeLessThan(0.2);
    // Speech throughout: no silence of 2 s or more.
    expect(await silences(path)).toEqual([]);

    const before = await stat(path);
    expect(await consentVideo({ text: TEXT })).toBe(path);
    expect((await stat(path)).mtimeMs).toBe(before.mtimeMs);
    // Another text is another file.
    expect(await consentVideo({ text: TEXT.replace('Jane Doe', 'John Roe'), variant: 'no-sound' })).not.toBe(path);
  }, 300_000);

  it('has no audio track in the no-sound variant', async () => {
    const facts = videoFacts(await consentVideo({ text: TEXT, variant: 'no-sound' }));
    expect(facts.hasVideo).toBe(true);
    expect(facts.hasAudio).toBe(false);
    expect(facts.durationSec).toBeGreaterThan(5);
  }, 300_000);

  it('shows two pictures side by side in the two-faces variant', async () => {
    const facts = videoFacts(await consentVideo({ text: TEXT, variant: 'two-faces' }));
    expect([facts.width, facts.height]).toEqual([1024, 512]);
    expect(facts.hasAudio).toBe(true);
  }, 300_000);
});

describe('avatar footage', () => {
  it('is as long as asked, speaks, and ends with 40 s of digital silence and a still picture', async () => {
    const path = await avatarFootage({ variant: 'short' });
    const facts = videoFacts(path);
    expect(facts.decodeErrors).toBe('');
    expect([facts.width, facts.height]).toEqual([512, 512]);
    expect(facts.hasAudio).toBe(true);
    expect(facts.frames).toBe(240 * 25);
    expect(Math.abs(facts.durationSec - 240)).toBeLessThan(0.2);
    const quiet = await silences(path);
    // The one long silence is the ending (the pauses between the looped sentences are short).
    expect(quiet).toHaveLength(1);
    expect(Math.abs(quiet[0]![0] - 200)).toBeLessThan(0.2);
    expect(quiet[0]![1]).toBeGreaterThan(239.8);
    // The speaking part moves; the ending does not.
    expect((await motion(path, 60, 10)).mean).toBeGreaterThan(0.2);
    expect((await motion(path, 205, 30)).max).toBeLessThan(0.05);
    // Nothing half-written is left behind in the cache folder.
    expect((await readdir(CACHE_DIR)).filter((f) => f.includes(`.${process.pid}-`))).toEqual([]);
  }, 300_000);

  it('moves a lot in the ending of the moving-ending variant, still silent', async () => {
    const path = await avatarFootage({ variant: 'moving-ending' });
    const quiet = await silences(path);
    expect(quiet).toHaveLength(1);
    expect(Math.abs(quiet[0]![0] - 290)).toBeLessThan(0.2);
    expect((await motion(path, 300, 10)).mean).toBeGreaterThan(3);
  }, 300_000);
});
