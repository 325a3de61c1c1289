/** renderStep (src/compute/run.ts): one job's render task, and the job's work folder from creation to removal. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ComputeBackend, ParkingBackend, RenderRequest, RenderResult, RenderState } from '../../src/compute/interface.ts';
import { renderStep, type RenderStepInput } from '../../src/compute/run.ts';
import { RenderError } from '../../src/errors.ts';

const result: RenderResult = {
  metadata: { num_frames: 10, processing_fps: 100, resolution: ['64', '64'], size_kib: 1, source_pose: [0, 0, 0], video_fps: 25, faces: [] },
  faceIds: [0],
};

let root: string;
let workDir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mimic-render-step-'));
  workDir = join(root, 'work', 'ani_1-job_1');
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** A step whose `prepare` fetches an input into the folder, as the jobs do; it records what it saw. */
function step(overrides: Partial<RenderStepInput<string>> = {}) {
  const seen = { prepared: 0, progress: [] as [number, number][], delivered: [] as { result: RenderResult; output: string }[] };
  const outputPath = join(workDir, 'result.mp4');
  const input: RenderStepInput<string> = {
    jobId: 'job_1',
    workDir,
    outputPath,
    onProgress: (done, total) => seen.progress.push([done, total]),
    prepare: async () => {
      seen.prepared++;
      const sourcePath = join(workDir, 'source.png');
      await writeFile(sourcePath, 'png');
      return {
        jobId: 'job_1', sourcePath, driver: { kind: 'bank', category: 'speaking', name: 'a' }, resultFormat: 'mp4', mute: true, stitch: false,
        maxAnimatedFaces: 1, logo: { kind: 'none' }, outputPath, workDir, signal: new AbortController().signal,
      };
    },
    deliver: async (r) => {
      seen.delivered.push({ result: r, output: await readFile(outputPath, 'utf8') });
      return 'delivered';
    },
    ...overrides,
  };
  return { input, seen };
}

/** Every kind renderStep takes is a render: its request is a RenderRequest. */
const asRender = (req: unknown) => req as RenderRequest;

/** An in-process backend: renders inside the job, writing the result where asked. */
function inProcess(fail?: Error): ComputeBackend & { requests: RenderRequest[] } {
  const requests: RenderRequest[] = [];
  return {
    name: 'in-process',
    requests,
    async run(_kind, req) {
      requests.push(asRender(req));
      if (fail) throw fail;
      await writeFile(asRender(req).outputPath, 'video');
      return result as never;
    },
    async close() {},
  };
}

/** A parking backend whose task is where `states` says, one state per poll (a failure is thrown, once). */
function parking(states: (RenderState | Error)[]): ComputeBackend & { submitted: RenderRequest[] } {
  const submitted: RenderRequest[] = [];
  const park: ParkingBackend = {
    recheckMs: 5000,
    async submit(_kind, req) {
      submitted.push(asRender(req));
    },
    async poll(_kind, _jobId, outputPath) {
      const now = states.shift()!;
      if (now instanceof Error) throw now;
      if (now.state === 'done') await writeFile(outputPath, 'remote video');
      return now as never;
    },
  };
  return { name: 'parking', parking: park, submitted, run: () => Promise.reject(new Error('a parking backend runs nothing in process')), async close() {} };
}

describe('renderStep', () => {
  it('on an in-process backend creates the folder, hands it to the task, delivers from it, then removes it', async () => {
    const backend = inProcess();
    const { input, seen } = step();
    await expect(renderStep(backend, 'animation.render', input)).resolves.toBe('delivered');
    expect(backend.requests.map((r) => [r.workDir, r.sourcePath])).toEqual([[workDir, join(workDir, 'source.png')]]);
    expect(seen.delivered).toEqual([{ result, output: 'video' }]);
    expect(existsSync(workDir)).toBe(false);
  });

  it('keeps the folder of a parked job, with its inputs, until the remote task is done, then removes it', async () => {
    const backend = parking([{ state: 'none' }, { state: 'running', progress: { done: 3, total: 10 } }, { state: 'done', result }]);
    const { input, seen } = step();

    await expect(renderStep(backend, 'clip.render', input)).resolves.toEqual({ wait: { recheckMs: 5000 } });
    expect(backend.submitted.map((r) => r.outputPath)).toEqual([join(workDir, 'result.mp4')]);
    expect(await readFile(join(workDir, 'source.png'), 'utf8')).toBe('png');

    await expect(renderStep(backend, 'clip.render', input)).resolves.toEqual({ wait: { recheckMs: 5000 } });
    expect(seen.progress).toEqual([[3, 10]]);
    expect(seen.prepared).toBe(1);
    expect(existsSync(join(workDir, 'source.png'))).toBe(true);

    await expect(renderStep(backend, 'clip.render', input)).resolves.toBe('delivered');
    expect(seen.delivered).toEqual([{ result, output: 'remote video' }]);
    expect(existsSync(workDir)).toBe(false);
  });

  it('removes the folder when the step throws: in prepare, in the task, in the remote task, in deliver', async () => {
    const inputs = new RenderError('SourceError', 'The source image no longer exists');
    const failing: [string, ComputeBackend, Partial<RenderStepInput<string>>, Error][] = [
      ['prepare', inProcess(), { prepare: async () => { await writeFile(join(workDir, 'partial'), 'x'); throw inputs; } }, inputs],
      ['task', inProcess(new Error('renderer crashed')), {}, new Error('renderer crashed')],
      ['remote task', parking([new RenderError('FaceError', 'No face found')]), {}, new RenderError('FaceError', 'No face found')],
      ['deliver', inProcess(), { deliver: async () => { throw new Error('storage full'); } }, new Error('storage full')],
    ];
    for (const [where, backend, overrides, error] of failing) {
      await expect(renderStep(backend, 'talk.render', step(overrides).input), where).rejects.toThrow(error.message);
      expect(existsSync(workDir), where).toBe(false);
    }
  });
});
