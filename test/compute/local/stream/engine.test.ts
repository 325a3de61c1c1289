import { afterAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { createStreamEngine } from '../../../../src/compute/local/stream/engine.ts';
import { activeProcesses } from '../../../../src/media/ffmpeg.ts';
import { SAMPLE_PORTRAIT } from '../../../helpers/video.ts';
import { parseRtp, vp8Frames, type Rtp } from './rtp.ts';

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
});
