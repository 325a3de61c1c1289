/**
 * What the render kinds (animation.render, clip.render, talk.render) share: a RenderRequest in,
 * one `result` video out, the `render` object of the claim answer. Each kind is one call of
 * `renderTask` in its own file; stream.render reuses the stored form and the input download.
 */
import { join } from 'node:path';
import { ApiError } from '../../errors.ts';
import type { ClaimedTask, CompleteBody } from '../../schemas/compute.ts';
import type { BackgroundInput, DriverInput, FaceRequest, LogoInput, RenderMetadata, RenderRequest, RenderResult, ResultFormat } from '../interface.ts';
import type { RenderJob } from '../local/render.ts';
import { DEFAULT_LOGO_PATH } from '../result-frame.ts';
import { RESULT_BRAND, RESULT_CONTENT_TYPE, RESULT_TEXT } from '../remote/protocol.ts';
import type { WorkerResult } from '../remote/task-store.ts';
import type { PresentContext, TaskDefinition, WorkerContext } from './task.ts';

/**
 * What a task row keeps of a RenderRequest (its `request` column): the render fields with the
 * API host's local input paths. The claim answer turns every path into a signed URL.
 */
export interface StoredRender {
  sourcePath: string;
  driver: DriverInput;
  face: FaceRequest | null;
  resultFormat: ResultFormat;
  mute: boolean;
  stitch: boolean;
  maxAnimatedFaces: number;
  logo: LogoInput;
  overlayPath: string | null;
  /** Absent from rows written before backgrounds existed: the source picture as it is. */
  background?: BackgroundInput | null;
  /** Absent from rows written before the worker scaled its own result: no scaling. */
  outputResolution?: number | null;
}

export function storedRender(req: Omit<RenderRequest, 'jobId' | 'outputPath' | 'workDir' | 'signal'>): StoredRender {
  return {
    sourcePath: req.sourcePath,
    driver: req.driver,
    face: req.face ?? null,
    resultFormat: req.resultFormat,
    mute: req.mute,
    stitch: req.stitch,
    maxAnimatedFaces: req.maxAnimatedFaces,
    logo: req.logo,
    overlayPath: req.overlayPath ?? null,
    background: req.background ?? null,
    ...(req.outputResolution !== undefined ? { outputResolution: req.outputResolution } : {}),
  };
}

/** The local file behind an input name of a render task, or null when the task has no such input. */
export function renderInputPath(render: StoredRender, name: string): string | null {
  switch (name) {
    case 'source':
      return render.sourcePath;
    case 'driver':
      return render.driver.kind === 'video' ? render.driver.path : render.driver.kind === 'speech' ? render.driver.audioPath : null;
    case 'logo':
      if (render.logo.kind === 'default') return DEFAULT_LOGO_PATH;
      return render.logo.kind === 'image' ? render.logo.path : null;
    case 'overlay':
      return render.overlayPath;
    case 'background':
      return render.background?.kind === 'image' ? render.background.path : null;
    default:
      return null;
  }
}

/** The `render` part of a claim answer. */
export function presentRender(render: StoredRender, sign: PresentContext['sign']): NonNullable<ClaimedTask['render']> {
  const { driver, logo } = render;
  const background = render.background ?? null;
  return {
    result_format: render.resultFormat,
    mute: render.mute,
    stitch: render.stitch,
    max_animated_faces: render.maxAnimatedFaces,
    face: render.face ? { size: render.face.size, top_left: [...render.face.top_left] } : null,
    driver:
      driver.kind === 'bank' ? { kind: 'bank', category: driver.category, name: driver.name }
      : driver.kind === 'speech' ? { kind: 'speech', url: sign('driver', 'GET'), seed: driver.seed, cues: driver.cues }
      : driver.kind === 'live' ? { kind: 'live', seed: driver.seed }
      : { kind: 'video', url: sign('driver', 'GET') },
    source_url: sign('source', 'GET'),
    logo:
      logo.kind === 'image' ? { kind: 'image', url: sign('logo', 'GET'), position: [...logo.position] }
      : logo.kind === 'default' ? { kind: 'default', url: sign('logo', 'GET') }
      : { kind: 'none' },
    overlay_url: render.overlayPath ? sign('overlay', 'GET') : null,
    background:
      background === null ? null
      : background.kind === 'image' ? { kind: 'image', url: sign('background', 'GET') }
      : background,
    ...(render.outputResolution ? { output_resolution: render.outputResolution } : {}),
  };
}

type ClaimedRender = NonNullable<ClaimedTask['render']>;

/** A render task's inputs, downloaded into the worker's folder: the RenderRequest fields that name files. */
export async function downloadRenderInputs(r: ClaimedRender, max: number, ctx: WorkerContext) {
  const sourcePath = await ctx.download(r.source_url, 'source', max);
  const d = r.driver;
  const driver: DriverInput =
    d.kind === 'bank' ? { kind: 'bank', category: d.category, name: d.name }
    : d.kind === 'speech' ? { kind: 'speech', audioPath: await ctx.download(d.url, 'driver', max), seed: d.seed, cues: d.cues }
    : d.kind === 'live' ? { kind: 'live', seed: d.seed }
    : { kind: 'video', path: await ctx.download(d.url, 'driver', max) };
  const logo: LogoInput =
    r.logo.kind === 'image'
      ? { kind: 'image', path: await ctx.download(r.logo.url, 'logo', max), position: [r.logo.position[0]!, r.logo.position[1]!] }
      : { kind: r.logo.kind };
  const overlayPath = r.overlay_url ? await ctx.download(r.overlay_url, 'overlay', max) : undefined;
  const b = r.background ?? null;
  const background: BackgroundInput | undefined =
    b === null ? undefined
    : b.kind === 'image' ? { kind: 'image', path: await ctx.download(b.url, 'background', max) }
    : b;
  return { sourcePath, driver, logo, ...(overlayPath ? { overlayPath } : {}), ...(background ? { background } : {}) };
}

export const faceOf = (r: ClaimedRender): { face?: FaceRequest } =>
  r.face ? { face: { size: r.face.size, top_left: [r.face.top_left[0]!, r.face.top_left[1]!] } } : {};

const invalid = (field: string, message: string) => new ApiError('ValidationError', `Invalid request body: ${field} ${message}`, [{ field, message }]);

/** What a render task completes with: the render's metadata and the animated faces. */
export function renderCompletion(body: CompleteBody): Omit<WorkerResult, 'renderMs'> {
  if (body.train) throw invalid('train', 'belongs to avatar.train tasks only');
  if (!body.metadata) throw invalid('metadata', 'is required');
  if (!body.face_ids) throw invalid('face_ids', 'is required');
  return { metadata: body.metadata, faceIds: body.face_ids };
}

/** A render kind: a RenderRequest becomes one `result` video (docs/compute-protocol.md, "Task kinds"). */
export function renderTask<K extends string>(kind: K, inputs: readonly string[]): TaskDefinition<K, RenderRequest, RenderResult, StoredRender> {
  return {
    kind,
    inputs,
    outputs: ['result'],
    local: {
      runner: 'render',
      job: (req): RenderJob => ({
        jobId: req.jobId, sourcePath: req.sourcePath, driver: req.driver, face: req.face,
        resultFormat: req.resultFormat, mute: req.mute, stitch: req.stitch, maxAnimatedFaces: req.maxAnimatedFaces,
        logo: req.logo, ...(req.overlayPath ? { overlayPath: req.overlayPath } : {}), ...(req.background ? { background: req.background } : {}),
        ...(req.outputResolution !== undefined ? { outputResolution: req.outputResolution } : {}),
        outputPath: req.outputPath, workDir: req.workDir, ...(req.previewDir ? { previewDir: req.previewDir } : {}),
      }),
      outputs: (req) => [req.outputPath],
    },
    remote: {
      store: (req) => ({ request: storedRender(req), outputPath: req.outputPath }),
      inputPath: renderInputPath,
      outputFile: (stored, name) =>
        name === 'result' ? { contentType: RESULT_CONTENT_TYPE[stored.resultFormat], brand: RESULT_BRAND[stored.resultFormat], text: RESULT_TEXT[stored.resultFormat] } : null,
      present: (stored, { sign, maxBytes }) => {
        const result = { upload_url: sign('result', 'PUT'), method: 'PUT' as const, content_type: RESULT_CONTENT_TYPE[stored.resultFormat], max_bytes: maxBytes };
        return { outputs: { result }, render: presentRender(stored, sign), result };
      },
      completion: renderCompletion,
      readBack: async (row, target, take) =>
        (await take(undefined, target)) ? { metadata: JSON.parse(row.metadata!) as RenderMetadata, faceIds: JSON.parse(row.face_ids!) as number[] } : null,
    },
    worker: {
      claims: () => true,
      async execute(task, ctx) {
        const r = task.render, result = task.result;
        if (!r || !result) throw new Error('the task carries no render parameters');
        const inputs = await downloadRenderInputs(r, result.max_bytes, ctx);
        ctx.mark('downloaded');
        const outputPath = join(ctx.dir, `result.${r.result_format}`);
        // Every render kind takes a RenderRequest; `kind` is generic here, so one of them stands for its type.
        const rendered = await ctx.backend.run(kind as 'animation.render', {
          jobId: task.task_id,
          ...inputs,
          ...faceOf(r),
          resultFormat: r.result_format,
          mute: r.mute,
          stitch: r.stitch,
          maxAnimatedFaces: r.max_animated_faces,
          ...(r.output_resolution ? { outputResolution: r.output_resolution } : {}),
          outputPath,
          workDir: ctx.dir,
          signal: ctx.signal,
          onProgress: (done, total) => ctx.progress(done, total),
        });
        ctx.mark('rendered');
        ctx.checkpoint();
        await ctx.upload(result.upload_url, outputPath, result.content_type);
        ctx.checkpoint();
        await ctx.complete({ metadata: rendered.metadata, face_ids: rendered.faceIds });
        return 'completed';
      },
    },
  };
}
