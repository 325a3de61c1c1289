/** What the stream renderer tests share: a sink that records what a session sends, and the pictures it decodes to. */
import { expect } from 'vitest';
import type { StreamEvent, VideoCodec } from '../../../../src/compute/stream.ts';
import { h264AnnexB, ivf, lastPicture, parseRtp, vp8Frames, type Rtp } from './rtp.ts';

/** What a sink received, and a way to wait for what it will receive. */
export function receiver() {
  const video: Rtp[] = [], audio: Rtp[] = [], events: StreamEvent[] = [];
  let wake: (() => void)[] = [];
  const poke = () => { const w = wake; wake = []; w.forEach((f) => f()); };
  return {
    video, audio, events,
    sink: {
      video: (p: Buffer) => { video.push(parseRtp(Buffer.from(p))); poke(); },
      audio: (p: Buffer) => { audio.push(parseRtp(Buffer.from(p))); poke(); },
    },
    onEvent: (e: StreamEvent) => { events.push(e); poke(); },
    /** Resolves when `ok()` holds; fails after a generous time (never a timing assertion, only a hang guard). */
    async until(ok: () => boolean, what: string, ms = 90_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise<void>((r) => { wake.push(r); setTimeout(r, 200); });
      }
    },
    kinds: () => events.map((e) => ('videoId' in e ? `${e.type}:${e.videoId}` : e.type)),
  };
}

/** The newest decodable picture of the video packets (from the first keyframe on). */
export async function newestPicture(dir: string, codec: VideoCodec, packets: Rtp[], width: number, height: number, name: string) {
  if (codec === 'vp8') {
    const frames = vp8Frames(packets);
    const first = frames.findIndex((f) => f.key);
    expect(first).toBeGreaterThanOrEqual(0);
    return lastPicture(dir, name, ivf(frames.slice(first).map((f) => f.data), width, height), 'ivf', width, height);
  }
  const { stream, nalTypes } = h264AnnexB(packets);
  // SPS, PPS and an IDR slice: a receiver can start decoding.
  expect(nalTypes).toEqual(expect.arrayContaining([7, 8, 5]));
  return lastPicture(dir, name, stream, 'h264', width, height);
}
