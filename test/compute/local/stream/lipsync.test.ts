/**
 * Lips in time with the sound on a live stream, measured as clip renders are (lipsync.ts): the
 * received frames are laid out by their RTP timestamps (a dropped frame's slot shows the
 * nearest received one), the speech placed at the timestamp of its first audio packet, and the
 * mouth tracked on the result is cross-correlated with the speech envelope.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { int16Wav } from '../../../../src/speaking/speech.ts';
import { runFfmpeg } from '../../../../src/media/ffmpeg.ts';
import { LIP_SYNC_GOALS, measureLipSync } from '../../../../src/compute/local/lipsync.ts';
import { createLocalStreamRenderer } from '../../../../src/compute/local/stream/index.ts';
import type { StreamEvent } from '../../../../src/compute/stream.ts';
import { BUILT_IN_PRESENTERS } from '../../../../src/presenters/built-in.ts';
import { createFliteProvider } from '../../../../src/voices/flite/index.ts';
import { VoicePool } from '../../../../src/voices/pool.ts';
import { ivf, parseRtp, pictures, vp8Frames, type Rtp } from './rtp.ts';

const SCRIPT = 'Bobby bought a big map. Pam made maple pie.';
let dir: string;
let pool: VoicePool;
const renderer = createLocalStreamRenderer();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mimic-stream-lipsync-'));
  pool = new VoicePool({ size: 1, warm: false });
});
afterAll(async () => {
  await renderer.close();
  await pool.close();
  await rm(dir, { recursive: true, force: true });
});

it('keeps the lips in time with the sound (by the packets\' timestamps)', async () => {
  const speech = await createFliteProvider({ pool }).synthesize({ text: SCRIPT, voiceId: 'en-US-flite-slt' });
  const grace = BUILT_IN_PRESENTERS.find((p) => p.name === 'Grace')!;
  const video: Rtp[] = [], audio: Rtp[] = [], events: StreamEvent[] = [];
  const s = await renderer.open({ streamId: 'st_sync', sourcePath: grace.image, stitch: false, seed: 'sync', workDir: dir },
    { video: (p) => video.push(parseRtp(Buffer.from(p))), audio: (p) => audio.push(parseRtp(Buffer.from(p))) }, (e) => events.push(e));
  try {
    await s.start({ codec: 'vp8', fluent: false, warmup: false });
    // Two pieces, as a script synthesised sentence by sentence arrives: each with its own cues.
    // Cut in the pause between the sentences.
    const gaps = speech.phonemes.slice(1).map((c, i) => ({ from: speech.phonemes[i]!.endMs, to: c.startMs }));
    const pause = gaps.reduce((a, b) => (b.to - b.from > a.to - a.from ? b : a));
    expect(pause.to - pause.from).toBeGreaterThan(150);
    const cut = Math.round((pause.from + pause.to) / 2);
    const at = Math.round((cut / 1000) * speech.sampleRate);
    s.speak({ videoId: 'v', pcm: speech.pcm.slice(0, at), sampleRate: speech.sampleRate, cues: speech.phonemes.filter((c) => c.endMs <= cut), last: false });
    s.speak({
      videoId: 'v', pcm: speech.pcm.slice(at), sampleRate: speech.sampleRate, last: true,
      cues: speech.phonemes.filter((c) => c.startMs >= cut).map((c) => ({ ...c, startMs: c.startMs - cut, endMs: c.endMs - cut })),
    });
    const deadline = Date.now() + 120_000;
    while (!events.some((e) => e.type === 'done') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(events.map((e) => e.type)).toEqual(['started', 'done']);
  } finally {
    await s.close();
  }

  const frames = vp8Frames(video);
  expect(frames[0]!.key).toBe(true);
  const { frames: decoded } = await pictures(dir, 'sync', ivf(frames.map((f) => f.data), 512, 512), 'ivf', 512, 512);
  expect(decoded.length).toBe(frames.length);
  // 25 fps by timestamp from the first frame; a slot whose frame was dropped (late, on a loaded
  // machine) shows the received frame nearest in time. Repeating the one before, as a player
  // would, biases the measure late by half the gap: with many drops that alone read as 130 ms.
  const v0 = frames[0]!.timestamp, count = (frames.at(-1)!.timestamp - v0) / 3600 + 1;
  const laidOut: Buffer[] = [];
  for (let n = 0, i = 0; n < count; n++) {
    const slot = v0 + n * 3600;
    while (i + 1 < frames.length && frames[i + 1]!.timestamp <= slot) i++;
    const next = frames[i + 1];
    laidOut.push(decoded[next && next.timestamp - slot < slot - frames[i]!.timestamp ? i + 1 : i]!);
  }
  // The speech starts at the timestamp of the first audio packet (the script's first sound).
  // The first frame comes with the script's first sound, or later when the first frames were
  // dropped as late (a loaded machine): never before it. The sound is laid out from the first
  // frame's time either way, so the measure below checks the alignment itself.
  const lead = audio[0]!.timestamp / 48_000 - v0 / 90_000;
  expect(lead).toBeLessThanOrEqual(0.04);
  const shift = Math.round(lead * speech.sampleRate);
  const pcm = shift >= 0 ? new Int16Array(shift + speech.pcm.length) : speech.pcm.slice(-shift);
  if (shift >= 0) pcm.set(speech.pcm, shift);
  await writeFile(join(dir, 'sync.wav'), int16Wav(pcm, speech.sampleRate));
  await writeFile(join(dir, 'sync.rgb'), Buffer.concat(laidOut));
  const out = join(dir, 'sync.mp4');
  const r = await runFfmpeg(['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', '512x512', '-framerate', '25', '-i', join(dir, 'sync.rgb'),
    '-i', join(dir, 'sync.wav'), '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', out]);
  expect(r.stderr).toBe('');
  const sync = await measureLipSync(out);
  expect(Math.abs(sync.offsetMs)).toBeLessThanOrEqual(LIP_SYNC_GOALS.maxOffsetMs);
  expect(sync.correlation).toBeGreaterThan(0.3);
}, 240_000);
