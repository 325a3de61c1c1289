import { afterAll, describe, expect, it, vi } from 'vitest';
import { tmpdir } from 'node:os';
import { createStreamEngine } from '../../../../src/compute/local/stream/engine.ts';
import { activeProcesses } from '../../../../src/media/ffmpeg.ts';
import { SAMPLE_PORTRAIT } from '../../../helpers/video.ts';
import { parseRtp, vp8Frames, type Rtp } from './rtp.ts';

// Every render of a frame is counted, to see what a busy encoder costs.
const renders = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../../../src/compute/local/render.ts', async (original) => {
  const m = await original<typeof import('../../../../src/compute/local/render.ts')>();
  return { ...m, animateFrame: (...a: Parameters<typeof m.animateFrame>) => { renders.n++; return m.animateFrame(...a); } };
});

/** Resolves once `ready()` holds, checked whenever `wake` is called. */
function until(ready: () => boolean): { wake: () => void; done: Promise<void> } {
  let wake = () => {};
  const done = new Promise<void>((r) => { wake = () => { if (ready()) r(); }; });
  return { wake, done };
}

// The engine without the render process: how a GPU worker would run it (see docs/streams-engine.md).
describe('stream engine in the calling process', () => {
  const engines: ReturnType<typeof createStreamEngine>[] = [];
  afterAll(async () => { await Promise.all(engines.map((e) => e.close())); });

  for (const prepareOnThread of [true, false]) {
    it(`streams a face with faces prepared ${prepareOnThread ? 'on a worker thread' : 'on the calling thread'}`, async () => {
      const engine = createStreamEngine({ prepareOnThread });
      engines.push(engine);
      const video: Rtp[] = [];
      let wake = () => {};
      const s = await engine.open({ streamId: 'st_e', sourcePath: SAMPLE_PORTRAIT, stitch: false, seed: 'e', workDir: tmpdir() },
        { video: (p) => { video.push(parseRtp(p)); wake(); }, audio: () => {} }, () => {});
      await s.start({ codec: 'vp8', fluent: true, warmup: false });
      await new Promise<void>((r) => { wake = () => { if (vp8Frames(video).length >= 5) r(); }; });
      expect(vp8Frames(video)[0]!.key).toBe(true);
      expect(engine.sessions()).toBe(1);
      expect(engine.frames().rendered).toBeGreaterThanOrEqual(5);
      await s.close();
      expect(engine.sessions()).toBe(0);
      expect(activeProcesses.size).toBe(0);
    });
  }

  // A loaded machine: the video encoder cannot keep up (here: stopped for a while). Frames it
  // cannot take are skipped before they are rendered, so the CPU goes to the frames that are
  // sent; sound goes on; frames come again once the encoder reads.
  it('renders no frame the encoder cannot take, and keeps the sound going meanwhile', async () => {
    const engine = createStreamEngine({ prepareOnThread: false });
    engines.push(engine);
    const video: Rtp[] = [];
    let audio = 0;
    let check = until(() => vp8Frames(video).length >= 5);
    const s = await engine.open({ streamId: 'st_busy', sourcePath: SAMPLE_PORTRAIT, stitch: false, seed: 'b', workDir: tmpdir() },
      { video: (p) => { video.push(parseRtp(p)); check.wake(); }, audio: () => { audio++; check.wake(); } }, () => {});
    await s.start({ codec: 'vp8', fluent: true, warmup: false });
    await check.done;

    const encoder = [...activeProcesses].find((p) => (p as { spawnargs?: string[] }).spawnargs?.includes('rawvideo'));
    expect(encoder, 'the video encoder among the running ffmpeg processes').toBeDefined();
    encoder!.kill('SIGSTOP');
    const at = { renders: renders.n, frames: engine.frames(), audio };
    // Stopped for 25 frame slots (1 s), however slowly this machine gets there; sound still flows.
    check = until(() => engine.frames().dropped - at.frames.dropped >= 25 && audio - at.audio >= 25);
    const poll = setInterval(() => check.wake(), 20);
    try {
      await check.done;
    } finally {
      clearInterval(poll);
      encoder!.kill('SIGCONT');
    }
    // At most what fills the pipe (a frame in the socket's buffer, one waiting) is rendered; nothing is thrown away.
    expect(renders.n - at.renders).toBeLessThanOrEqual(2);
    expect(engine.frames().discarded).toBe(0);

    const sent = vp8Frames(video).length;
    check = until(() => vp8Frames(video).length >= sent + 5);
    check.wake();
    await check.done;
    expect(engine.frames().discarded).toBe(0);
    await s.close();
  });
});
