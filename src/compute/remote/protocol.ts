import { extname } from 'node:path';
import type { BackgroundInput, DriverInput, FaceRequest, LogoInput, RenderRequest, ResultFormat } from '../interface.ts';
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

/** The local file behind an input name of the task, or null when the task has no such input. */
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
    case 'stream':
      return null;
  }
}

export const RESULT_CONTENT_TYPE: Record<ResultFormat, string> = { mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm' };

/** How a result file of each format must start: an ftyp box of this major brand, or (webm) the EBML magic. */
export const RESULT_BRAND: Record<ResultFormat, { ftyp: string } | { magic: string }> = {
  mp4: { ftyp: 'isom' },
  mov: { ftyp: 'qt  ' },
  webm: { magic: '1a45dfa3' },
};

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

/** The `render` and `result` parts of a claim answer. */
export function presentRender(render: StoredRender, sign: SignUrl, maxBytes: number): Pick<ClaimedTask, 'render' | 'result'> {
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
