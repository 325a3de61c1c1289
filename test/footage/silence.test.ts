/** detectSound: ffmpeg's silencedetect (-35 dB, 2 s) as spans of sound. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSound, parseSilences } from '../../src/footage/silence.ts';
import { ffmpeg, workDir } from './speech-fixtures.ts';

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await workDir());
  // tone 3 s, silence 5 s, tone 2 s, low noise (about -50 dBFS) 6 s; a short 1 s gap between tones is not silence.
  const tone = (d: number) => `sine=frequency=300:sample_rate=16000:duration=${d}`;
  await ffmpeg(['-f', 'lavfi', '-i', tone(3), '-f', 'lavfi', '-t', '5', '-i', 'anullsrc=r=16000:cl=mono', '-f', 'lavfi', '-i', tone(2),
    '-f', 'lavfi', '-t', '6', '-i', 'anoisesrc=r=16000:a=0.003:c=pink',
    '-filter_complex', '[0:a][1:a][2:a][3:a]concat=n=4:v=0:a=1', '-ac', '1', join(dir, 'mixed.wav')]);
  await ffmpeg(['-f', 'lavfi', '-i', tone(2), '-f', 'lavfi', '-t', '1', '-i', 'anullsrc=r=16000:cl=mono', '-f', 'lavfi', '-i', tone(2),
    '-filter_complex', '[0:a][1:a][2:a]concat=n=3:v=0:a=1', '-ac', '1', join(dir, 'short-gap.wav')]);
});
afterAll(() => cleanup());

describe('detectSound', () => {
  it('finds the sound between silences of 2 s or more, low noise counting as silence', async () => {
    const a = await detectSound(join(dir, 'mixed.wav'));
    expect(a.method).toBe('silencedetect');
    expect(a.spans).toHaveLength(2);
    expect(a.spans[0]!.startSec).toBe(0);
    expect(a.spans[0]!.endSec).toBeCloseTo(3, 0);
    expect(a.spans[1]!.startSec).toBeCloseTo(8, 0);
    expect(a.lastSpeechEndSec).toBeCloseTo(10, 0);
    expect(a.speechSec).toBeCloseTo(5, 0);
    expect(a.durationSec).toBeCloseTo(16, 0);
  });

  it('keeps a pause shorter than 2 s inside one span', async () => {
    const a = await detectSound(join(dir, 'short-gap.wav'));
    expect(a.spans).toHaveLength(1);
    expect(a.lastSpeechEndSec).toBeCloseTo(5, 0);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(detectSound(join(dir, 'mixed.wav'), controller.signal)).rejects.toThrow('stop');
  });
});

describe('parseSilences', () => {
  it('reads silencedetect lines; a silence still open at the end runs to the end; all silence is no span', () => {
    const log = [
      'Duration: 00:00:20.00, bitrate: 256 kb/s',
      '[silencedetect @ 0x1] silence_start: 4.5',
      '[silencedetect @ 0x1] silence_end: 7.25 | silence_duration: 2.75',
      '[silencedetect @ 0x1] silence_start: 12',
      'size=N/A time=00:00:19.50 bitrate=N/A speed= 500x',
    ].join('\n');
    expect(parseSilences(log)).toEqual({
      method: 'silencedetect',
      spans: [{ startSec: 0, endSec: 4.5 }, { startSec: 7.25, endSec: 12 }],
      speechSec: 9.25,
      lastSpeechEndSec: 12,
      durationSec: 19.5,
    });
    const silent = parseSilences('[silencedetect @ 0x1] silence_start: -0.002\nsize=N/A time=00:00:30.00 bitrate=N/A');
    expect(silent.spans).toEqual([]);
    expect(silent.lastSpeechEndSec).toBeNull();
  });
});
