import { extname } from 'node:path';
import type { BackgroundInput, DriverInput, FaceRequest, LogoInput, RenderRequest, ResultFormat, TrainRequest } from '../interface.ts';
import { TRAIN_TASK_KIND } from '../kinds.ts';
import { DEFAULT_LOGO_PATH } from '../result-frame.ts';
import type { ClaimedTask } from '../../schemas/compute.ts';
import type { FileName } from './signing.ts';

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
}

export function storedRender(req: RenderRequest): StoredRender {
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
  };
}

/** What a task row keeps of a TrainRequest (an `avatar.train` task's `request` column). */
export interface StoredTrain {
  footagePath: string;
  idle: { fromSec: number; toSec: number };
  speech: { fromSec: number; toSec: number };
}

export const storedTrain = (req: TrainRequest): StoredTrain => ({
  footagePath: req.footagePath,
  idle: { fromSec: req.idle.fromSec, toSec: req.idle.toSec },
  speech: { fromSec: req.speech.fromSec, toSec: req.speech.toSec },
});

/** The `request` column of a task of any kind. */
export type StoredTask = StoredRender | StoredTrain;

/** The local file behind an input name of a task of `kind`, or null when the task has no such input. */
export function taskInputPath(kind: string, request: string, name: FileName): string | null {
  if (kind === TRAIN_TASK_KIND) return name === 'source' ? (JSON.parse(request) as StoredTrain).footagePath : null;
  return inputPath(JSON.parse(request) as StoredRender, name);
}

/** The local file behind an input name of a render task, or null when the task has no such input. */
export function inputPath(render: StoredRender, name: FileName): string | null {
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
    case 'result':
    case 'reference':
    case 'idle':
    case 'stream':
      return null;
  }
}

export const RESULT_CONTENT_TYPE: Record<ResultFormat, string> = { mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm' };

/** How a file must start: an ftyp box of this major brand, or these magic bytes (hex). */
export type FileBrand = { ftyp: string } | { magic: string };

/** How a result file of each format must start: an ftyp box of this major brand, or (webm) the EBML magic. */
export const RESULT_BRAND: Record<ResultFormat, FileBrand> = {
  mp4: { ftyp: 'isom' },
  mov: { ftyp: 'qt  ' },
  webm: { magic: '1a45dfa3' },
};

const FORMAT_TEXT: Record<ResultFormat, string> = {
  mp4: 'an mp4 (ISO base media, brand isom)',
  mov: 'a QuickTime mov (brand "qt  ")',
  webm: 'a WebM (EBML)',
};

/** What an output file of a task must be: its content type, how it starts, and that in words. */
export interface OutputFile {
  contentType: string;
  brand: FileBrand;
  text: string;
}

/** The outputs of `avatar.train`: the presenter's picture and its idle loop. */
export const TRAIN_OUTPUTS: Record<'reference' | 'idle', OutputFile> = {
  reference: { contentType: 'image/png', brand: { magic: '89504e470d0a1a0a' }, text: 'a PNG' },
  idle: { contentType: 'video/mp4', brand: RESULT_BRAND.mp4, text: FORMAT_TEXT.mp4 },
};

/** The output `name` of a task of `kind`, or null when the task has no such output. */
export function outputFile(kind: string, request: string, name: string): OutputFile | null {
  if (kind === TRAIN_TASK_KIND) return name === 'reference' || name === 'idle' ? TRAIN_OUTPUTS[name] : null;
  if (name !== 'result') return null;
  const format = (JSON.parse(request) as StoredRender).resultFormat;
  return { contentType: RESULT_CONTENT_TYPE[format], brand: RESULT_BRAND[format], text: FORMAT_TEXT[format] };
}

/** Input file types both ways: the service names the type by extension, a worker picks the extension by type. */
const INPUT_TYPES: [ext: string, type: string][] = [
  ['.png', 'image/png'],
  ['.jpg', 'image/jpeg'],
  ['.jpeg', 'image/jpeg'],
  ['.bmp', 'image/bmp'],
  ['.tiff', 'image/tiff'],
  ['.tif', 'image/tiff'],
  ['.webp', 'image/webp'],
  ['.mp4', 'video/mp4'],
  ['.mov', 'video/quicktime'],
  ['.mpeg', 'video/mpeg'],
  ['.webm', 'video/webm'],
  ['.wav', 'audio/wav'],
  ['.mp3', 'audio/mpeg'],
  ['.flac', 'audio/flac'],
  ['.m4a', 'audio/mp4'],
];

export const contentTypeOfInput = (path: string): string =>
  INPUT_TYPES.find(([ext]) => ext === extname(path).toLowerCase())?.[1] ?? 'application/octet-stream';

export const extensionOfType = (contentType: string): string => INPUT_TYPES.find(([, type]) => type === contentType)?.[0] ?? '';

export type SignUrl = (name: FileName, method: 'GET' | 'PUT') => string;

/** The `train` and `outputs` parts of an `avatar.train` claim answer. */
export function presentTrain(train: StoredTrain, sign: SignUrl, maxBytes: number): Pick<ClaimedTask, 'train' | 'outputs'> {
  const window = (w: StoredTrain['idle']) => ({ from_sec: w.fromSec, to_sec: w.toSec });
  const output = (name: 'reference' | 'idle') => ({ upload_url: sign(name, 'PUT'), method: 'PUT' as const, content_type: TRAIN_OUTPUTS[name].contentType, max_bytes: maxBytes });
  return {
    train: { footage_url: sign('source', 'GET'), idle: window(train.idle), speech: window(train.speech) },
    outputs: { reference: output('reference'), idle: output('idle') },
  };
}

/** The `render` and `result` parts of a claim answer. */
export function presentRender(render: StoredRender, sign: SignUrl, maxBytes: number): Required<Pick<ClaimedTask, 'render' | 'result'>> {
  const { driver, logo } = render;
  const background = render.background ?? null;
  return {
    render: {
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
    },
    result: {
      upload_url: sign('result', 'PUT'),
      method: 'PUT',
      content_type: RESULT_CONTENT_TYPE[render.resultFormat],
      max_bytes: maxBytes,
    },
  };
}
