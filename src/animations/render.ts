import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join, extname } from 'node:path';
import sharp from 'sharp';
import { RenderError } from '../errors.ts';
import type { ComputeBackend, DriverInput } from '../compute/interface.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext } from '../jobs/worker.ts';
import { EgressError } from '../egress/errors.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { CreateAnimationBody } from '../schemas/animations.ts';
import type { Logger } from '../log.ts';
import { parseBankUrl } from './driver-bank.ts';
import { ANIMATION_COST, SAMPLE_SOURCE, type AnimationDeps } from './deps.ts';
import { getAnimationById, refundCredits, updateAnimation, type AnimationRow } from './store.ts';


export interface RenderDeps extends AnimationDeps {
  backend: ComputeBackend;
  client: GuardedClient;
  log: Logger;
  /** Called inside the transaction that ends an animation (done or error): queues its webhook. */
  onFinished: (row: AnimationRow) => void;
}

const IMAGE_TYPES = /^image\/(?:jpeg|png|tiff|bmp|x-ms-bmp|webp)$/i;
const VIDEO_TYPES = /^(?:video\/[\w.+-]+|application\/octet-stream|application\/mp4)$/i;
const VIDEO_CONTENT_TYPE = { mp4: 'video/mp4', mov: 'video/quicktime' } as const;

/** A failed fetch of an input becomes that input's render error kind, naming the reason but no URL. */
function inputError(kind: 'SourceError' | 'DriverError', what: string, err: unknown): never {
  if (err instanceof EgressError) throw new RenderError(kind, `Could not load the ${what}: ${err.message}`);
  throw err;
}

async function obtainSource(deps: RenderDeps, row: AnimationRow, req: CreateAnimationBody, workDir: string): Promise<string> {
  if (row.sourceKey) {
    const stored = deps.media.find(row.userId, row.sourceKey);
    if (stored) return stored;
  }
  const scheme = `${deps.config.storageScheme}://`;
  let file: string;
  if (req.source_url === undefined) {
    file = SAMPLE_SOURCE;
  } else if (req.source_url.startsWith(scheme)) {
    const found = deps.media.find(row.userId, deps.media.keyOfStorageUrl(req.source_url) ?? '');
    if (!found) throw new RenderError('SourceError', 'The source image no longer exists in your media store');
    file = found;
  } else {
    file = join(workDir, 'source-download');
    await deps.client
      .download(req.source_url, file, {
        maxBytes: deps.config.fetch.maxImageBytes,
        timeoutMs: deps.config.fetch.timeoutMs,
        accept: (type) => IMAGE_TYPES.test(type) || type === 'application/octet-stream' || type === '',
      })
      .catch((e) => inputError('SourceError', 'source image', e));
  }
  let format: string | undefined;
  try {
    const meta = await sharp(file).metadata();
    format = meta.format;
    if (!meta.width || !meta.height) throw new Error('no dimensions');
  } catch {
    throw new RenderError('SourceError', 'The source image could not be decoded (expected jpg, png, tiff or bmp)');
  }
  const ext = format === 'jpeg' ? 'jpg' : (format ?? 'img');
  const key = `animations/${row.id}/source.${ext}`;
  await deps.media.putFile(row.userId, key, file, format === 'jpeg' ? 'image/jpeg' : `image/${format}`);
  updateAnimation(deps.store, row.id, { sourceKey: key, modifiedAt: deps.clock.now() });
  return deps.media.find(row.userId, key)!;
}

async function obtainDriver(deps: RenderDeps, row: AnimationRow, workDir: string): Promise<DriverInput> {
  const resolved = row.driverResolved;
  const bank = parseBankUrl(resolved);
  if (bank?.name) return { kind: 'bank', category: bank.category, name: bank.name };
  if (resolved.startsWith(`${deps.config.storageScheme}://`)) {
    const found = deps.media.find(row.userId, deps.media.keyOfStorageUrl(resolved) ?? '');
    if (!found) throw new RenderError('DriverError', 'The driver video no longer exists in your media store');
    return { kind: 'video', path: found };
  }
  const path = join(workDir, `driver${extname(new URL(resolved).pathname) || '.mp4'}`);
  await deps.client
    .download(resolved, path, {
      maxBytes: deps.config.fetch.maxVideoBytes,
      timeoutMs: deps.config.fetch.timeoutMs,
      accept: (type) => VIDEO_TYPES.test(type) || type === '',
    })
    .catch((e) => inputError('DriverError', 'driver video', e));
  return { kind: 'video', path };
}

/** Puts the finished video where the request asked: an https upload URL, a storage key, or the default key. */
async function deliverResult(deps: RenderDeps, row: AnimationRow, req: CreateAnimationBody, file: string, format: 'mp4' | 'mov') {
  const contentType = VIDEO_CONTENT_TYPE[format];
  const target = req.result_url;
  if (target?.startsWith('https://')) {
    await deps.client.upload(target, file, { contentType, timeoutMs: deps.config.fetch.timeoutMs });
    return { resultExternalUrl: target, resultKey: null };
  }
  const key = target ? deps.media.keyOfStorageUrl(target)! : `animations/${row.id}/result.${format}`;
  await deps.media.putFile(row.userId, key, file, contentType);
  return { resultKey: key, resultExternalUrl: null };
}

/** Ends an animation in `error`: the record says why, the credit comes back, the webhook goes out. */
export function finishWithError(deps: Pick<RenderDeps, 'store' | 'clock' | 'onFinished'>, id: string, kind: string, description: string): void {
  deps.store.sqlite.transaction(() => {
    const row = getAnimationById(deps.store, id);
    if (!row || row.status === 'done' || row.status === 'error') return;
    updateAnimation(deps.store, id, {
      status: 'error',
      error: JSON.stringify({ kind, description }),
      modifiedAt: deps.clock.now(),
      progressDone: null,
      progressTotal: null,
    });
    refundCredits(deps.store, row.userId, ANIMATION_COST);
    deps.onFinished(getAnimationById(deps.store, id)!);
  })();
}

/** The job handler of `animation.render`. */
export async function renderAnimation(deps: RenderDeps, job: Job, ctx: JobContext): Promise<void> {
  const row = getAnimationById(deps.store, job.resourceId);
  if (!row || row.status === 'done' || row.status === 'error') return;
  const req = JSON.parse(row.request) as CreateAnimationBody;
  const now = deps.clock.now();
  updateAnimation(deps.store, row.id, { status: 'started', startedAt: row.startedAt ?? now, modifiedAt: now });

  await mkdir(join(deps.config.dataDir, 'work'), { recursive: true });
  const workDir = await mkdtemp(join(deps.config.dataDir, 'work', `${row.id}-`));
  let lastProgress = 0;
  try {
    const sourcePath = await obtainSource(deps, row, req, workDir);
    const driver = await obtainDriver(deps, row, workDir);
    const format = req.config?.result_format ?? 'mp4';
    const outputPath = join(workDir, `result.${format}`);
    const result = await deps.backend.render({
      jobId: job.id,
      sourcePath,
      driver,
      ...(req.face ? { face: { size: req.face.size, top_left: [req.face.top_left[0]!, req.face.top_left[1]!] } } : {}),
      resultFormat: format,
      mute: req.config?.mute ?? true,
      stitch: req.config?.stitch ?? false,
      maxAnimatedFaces: Math.floor(req.config?.max_animated_faces ?? 5),
      logo: req.config?.logo === false ? { kind: 'none' } : { kind: 'default' },
      outputPath,
      workDir,
      signal: ctx.signal,
      onProgress: (done, total) => {
        const t = deps.clock.now();
        if (t - lastProgress < 500 && done < total) return;
        lastProgress = t;
        updateAnimation(deps.store, row.id, { progressDone: done, progressTotal: total, modifiedAt: t });
      },
    });
    const delivered = await deliverResult(deps, row, req, outputPath, format);
    deps.store.sqlite.transaction(() => {
      const current = getAnimationById(deps.store, row.id);
      if (!current) return; // deleted while rendering
      updateAnimation(deps.store, row.id, {
        status: 'done',
        ...delivered,
        metadata: JSON.stringify(result.metadata),
        faceIds: JSON.stringify(result.faceIds),
        progressDone: null,
        progressTotal: null,
        modifiedAt: deps.clock.now(),
      });
      deps.onFinished(getAnimationById(deps.store, row.id)!);
    })();
  } catch (err) {
    if (err instanceof RenderError) {
      deps.log.info('animation failed', { animation_id: row.id, kind: err.kind });
      finishWithError(deps, row.id, err.kind, err.description);
      return;
    }
    throw err;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}


