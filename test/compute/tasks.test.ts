/** The task catalogue (src/compute/tasks/): one entry per kind, looked up by kind. */
import { describe, expect, it } from 'vitest';
import { TASKS, TASK_FILE_NAMES, isTaskKind, taskOf } from '../../src/compute/tasks/index.ts';
import type { RenderRequest, TrainRequest } from '../../src/compute/interface.ts';

const signal = new AbortController().signal;
const render: RenderRequest = {
  jobId: 'job_1', sourcePath: '/in/source.png', driver: { kind: 'speech', audioPath: '/in/speech.wav', cues: [], seed: 's' },
  resultFormat: 'webm', mute: false, stitch: false, maxAnimatedFaces: 1, logo: { kind: 'image', path: '/in/logo.png', position: [0, 0] },
  background: { kind: 'image', path: '/in/room.png' }, overlayPath: '/in/overlay.mov', outputResolution: 256, outputPath: '/out/result.webm', workDir: '/work', signal,
};

describe('the task catalogue', () => {
  it('holds each kind once, and reads an unknown kind (a row from a newer server) as animation.render', () => {
    const kinds = TASKS.map((t) => t.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(kinds.sort()).toEqual(['animation.render', 'avatar.train', 'clip.render', 'stream.render', 'talk.render']);
    expect(isTaskKind('clip.render')).toBe(true);
    expect(isTaskKind('consent.verify')).toBe(false);
    expect(taskOf('consent.verify').kind).toBe('animation.render');
  });

  it('serves every input and output name of every kind, and the stream socket', () => {
    for (const t of TASKS) for (const name of [...t.inputs, ...t.outputs]) expect(TASK_FILE_NAMES.has(name)).toBe(true);
    expect([...TASK_FILE_NAMES].sort()).toEqual(['background', 'driver', 'idle', 'logo', 'overlay', 'reference', 'result', 'source', 'stream']);
  });

  it('offers a render kind only the inputs it names, from what its row keeps', () => {
    const inputsOf = (kind: string) => {
      const t = taskOf(kind);
      const { request } = t.remote.store(render);
      const stored = JSON.parse(JSON.stringify(request));
      return Object.fromEntries(t.inputs.map((n) => [n, t.remote.inputPath(stored, n)]).filter(([, p]) => p !== null));
    };
    expect(inputsOf('clip.render')).toEqual({ source: '/in/source.png', driver: '/in/speech.wav', logo: '/in/logo.png', background: '/in/room.png' });
    expect(inputsOf('talk.render')).toEqual({ source: '/in/source.png', driver: '/in/speech.wav', logo: '/in/logo.png' });
    expect(inputsOf('animation.render')).toEqual({ source: '/in/source.png', driver: '/in/speech.wav', logo: '/in/logo.png', overlay: '/in/overlay.mov' });
  });

  it('keeps an avatar.train footage and windows, its outputs a PNG and an mp4 in the output folder', () => {
    const t = taskOf('avatar.train');
    const req: TrainRequest = { jobId: 'job_2', footagePath: '/in/footage.mp4', idle: { fromSec: 290, toSec: 300 }, speech: { fromSec: 0, toSec: 290 }, outputDir: '/out', workDir: '/work', signal };
    const { request, outputPath } = t.remote.store(req);
    expect(outputPath).toBe('/out');
    expect(t.remote.inputPath(request, 'source')).toBe('/in/footage.mp4');
    expect(t.remote.inputPath(request, 'driver')).toBeNull();
    expect(t.remote.outputFile(request, 'reference')?.contentType).toBe('image/png');
    expect(t.remote.outputFile(request, 'idle')?.contentType).toBe('video/mp4');
    expect(t.remote.outputFile(request, 'result')).toBeNull();
  });
});
