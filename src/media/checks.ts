/**
 * The rules a media input (an image, a video) and a result URL must meet, whatever record
 * they belong to. Each rule has one implementation, run where the input's bytes are: at create
 * time for stored inputs (a 400, nothing written, nothing charged), at render time for fetched
 * ones (the record ends in error with the same kind). docs/animation-limits.md lists every
 * limit and its setting.
 */
import { open, stat } from 'node:fs/promises';
import sharp, { type Metadata } from 'sharp';
import { ApiError, RenderError, type RenderErrorKind } from '../errors.ts';
import type { Config } from '../config.ts';

export type InputRole = 'source' | 'driver' | 'logo' | 'overlay' | 'background';
export type ImageRole = 'source' | 'logo' | 'background';
type VideoRole = 'driver' | 'overlay';

/** Each input's request field, and the render kind of a failure that is no rule's. */
export const INPUT_ROLES = {
  source: { field: 'source_url', what: 'source image', failKind: 'SourceError' },
  driver: { field: 'driver_url', what: 'driver video', failKind: 'DriverError' },
  logo: { field: 'config.logo.url', what: 'logo image', failKind: 'LogoError' },
  overlay: { field: 'config.overlay', what: 'overlay video', failKind: 'OverlayError' },
  /** The background image a picture speaks on (docs/clips.md). */
  background: { field: 'background.source_url', what: 'background image', failKind: 'BackgroundError' },
} as const satisfies Record<InputRole, { field: string; what: string; failKind: RenderErrorKind }>;

export type CheckLimits = Pick<Config, 'fetch' | 'images'>;

type RuleKind = 'InvalidFileSizeError' | 'InvalidImageResolutionError' | 'InvalidFaceError' | 'ConfigError';
type Measured = Record<string, number | string>;

/**
 * A broken rule: `kind` is the 400 at create time, `renderKind` the kind on the record at
 * render time. The description names the field, the limit and the measured value, never a URL.
 */
export class InputRejected extends Error {
  readonly description: string;
  constructor(
    readonly kind: RuleKind | 'BadRequestError',
    readonly renderKind: RenderErrorKind,
    readonly field: string,
    readonly reason: string,
    readonly measured: Measured = {},
  ) {
    super(`${field}: ${reason}`);
    this.name = 'InputRejected';
    this.description = `${field}: ${reason}`;
  }

  toApiError(): ApiError {
    return new ApiError(this.kind, this.description, [{ field: this.field, message: this.reason, ...this.measured }]);
  }

  toRenderError(): RenderError {
    return new RenderError(this.renderKind, this.description);
  }
}

/** A broken rule whose 400 and render kind are the same. */
export const rejected = (kind: RuleKind, field: string, reason: string, measured?: Measured) => new InputRejected(kind, kind, field, reason, measured);

const KiB = 1024;
const MiB = 1024 * KiB;
const sizeText = (bytes: number) =>
  `${bytes} bytes (${bytes < MiB ? `${Math.round((bytes / KiB) * 10) / 10} KiB` : `${Math.round((bytes / MiB) * 100) / 100} MiB`})`;

export const maxBytesOf = (role: InputRole, limits: CheckLimits): number =>
  role === 'source' || role === 'logo' || role === 'background' ? limits.fetch.maxImageBytes : limits.fetch.maxVideoBytes;

/** An input must hold at least one byte and at most its kind's limit. */
export function checkFileSize(role: InputRole, bytes: number, limits: CheckLimits): void {
  const { field } = INPUT_ROLES[role];
  const max = maxBytesOf(role, limits);
  if (bytes === 0) throw rejected('InvalidFileSizeError', field, 'the file is empty (0 bytes)', { bytes });
  if (bytes > max) {
    throw rejected('InvalidFileSizeError', field, `the file is ${sizeText(bytes)}; the limit is ${sizeText(max)}`, { bytes, max_bytes: max });
  }
}

/** A download the size cap cut off: larger than the limit, by how much is not known. */
export function downloadTooLarge(role: InputRole, limits: CheckLimits): InputRejected {
  const max = maxBytesOf(role, limits);
  return rejected('InvalidFileSizeError', INPUT_ROLES[role].field, `the file is larger than the limit of ${sizeText(max)}`, { max_bytes: max });
}

export interface ImageSize {
  width: number;
  height: number;
}

export interface ImageInfo extends ImageSize {
  /** sharp's name of the format: jpeg, png, tiff, webp or bmp. */
  format: string;
}

/**
 * Formats an image input may have, told by their first bytes, so that nothing else (svg,
 * pdf, heif ...) ever reaches a decoder. bmp, which libvips lacks, is read from its header
 * and accepted as a source only (the renderer converts it through ffmpeg).
 */
const SIGNATURES: [format: string, test: (b: Buffer) => boolean][] = [
  ['jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['png', (b) => b.toString('hex', 0, 8) === '89504e470d0a1a0a'],
  ['tiff', (b) => ['49492a00', '4d4d002a'].includes(b.toString('hex', 0, 4))],
  ['webp', (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP'],
  ['bmp', (b) => b.toString('latin1', 0, 2) === 'BM'],
];
const HEAD_BYTES = 26;

async function headOf(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const { bytesRead, buffer } = await file.read(Buffer.alloc(HEAD_BYTES), 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** Width and height from a bmp header (BITMAPCOREHEADER or later); null when it has neither. */
function bmpSize(head: Buffer): ImageSize | null {
  if (head.length < HEAD_BYTES) return null;
  const header = head.readUInt32LE(14);
  if (header === 12) return { width: head.readUInt16LE(18), height: head.readUInt16LE(20) };
  // A negative height means rows stored top-down; the picture is as tall either way.
  if (header >= 40) return { width: Math.abs(head.readInt32LE(18)), height: Math.abs(head.readInt32LE(22)) };
  return null;
}

/**
 * Format and size as the picture is shown (EXIF orientation applied: a portrait photo
 * stored sideways is as tall as it looks), read from the header only. Unreadable is a
 * BadRequestError at create time and the input's own render kind on the record.
 */
export async function readImageInfo(role: ImageRole, path: string): Promise<ImageInfo> {
  const { field, failKind } = INPUT_ROLES[role];
  const formats = role === 'source' ? 'jpg, png, tiff or bmp' : 'jpg or png';
  const unreadable = new InputRejected('BadRequestError', failKind, field, `the file is not a ${formats} image that can be read`);
  const head = await headOf(path);
  const format = SIGNATURES.find(([, test]) => test(head))?.[0];
  if (format === 'bmp') {
    const size = role === 'source' ? bmpSize(head) : null;
    if (!size?.width || !size.height) throw unreadable;
    return { ...size, format };
  }
  if (!format) throw unreadable;
  let meta: Metadata;
  try {
    meta = await sharp(path).metadata();
  } catch {
    throw unreadable;
  }
  const { width, height } = meta.autoOrient ?? meta;
  if (meta.format !== format || !width || !height) throw unreadable;
  return { width, height, format };
}

/** The source's sides must lie within the bounds; a logo or a background only has the upper bounds. */
export function checkResolution(role: ImageRole, size: ImageSize, limits: CheckLimits): void {
  const { field } = INPUT_ROLES[role];
  const { minSide, maxSide, maxPixels } = limits.images;
  const { width, height } = size;
  const seen = `the image is ${width}x${height} pixels`;
  if (role === 'source' && Math.min(width, height) < minSide) {
    throw rejected('InvalidImageResolutionError', field, `${seen}; the minimum side is ${minSide}`, { width, height, min_side: minSide });
  }
  if (Math.max(width, height) > maxSide) {
    throw rejected('InvalidImageResolutionError', field, `${seen}; the maximum side is ${maxSide}`, { width, height, max_side: maxSide });
  }
  if (width * height > maxPixels) {
    throw rejected('InvalidImageResolutionError', field, `${seen} (${width * height} pixels); the maximum is ${maxPixels} pixels`, {
      width,
      height,
      max_pixels: maxPixels,
    });
  }
}

/** Every rule about an image file: its size in bytes, that it can be read, its resolution. */
export async function inspectImage(role: ImageRole, path: string, limits: CheckLimits): Promise<ImageInfo> {
  checkFileSize(role, (await stat(path)).size, limits);
  const info = await readImageInfo(role, path);
  checkResolution(role, info, limits);
  return info;
}

/** Every rule about a video file that holds before decoding it: its size in bytes. */
export async function inspectVideo(role: VideoRole, path: string, limits: CheckLimits): Promise<void> {
  checkFileSize(role, (await stat(path)).size, limits);
}

/** The containers written when a request's result_url names one (webm only ever comes from a clip's config.result_format). */
type ContainerFormat = 'mp4' | 'mov';

/** What the result-format rules read of a request. */
export interface ResultRequest {
  config?: { result_format?: ContainerFormat };
  result_url?: string;
}

/** Containers a result_url's extension may name: the two the service writes, and others it does not. */
const CONTAINER_OF_EXTENSION: Record<string, ContainerFormat | null> = {
  mp4: 'mp4',
  m4v: 'mp4',
  mov: 'mov',
  qt: 'mov',
  webm: null,
  mkv: null,
  avi: null,
  gif: null,
  mpeg: null,
  mpg: null,
  wmv: null,
  flv: null,
  ogv: null,
};

/** The lower-case extension of a URL's last path segment (query and fragment ignored), or null. */
function extensionOf(url: string): string | null {
  const path = url.replace(/[?#].*$/, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : null;
}

const containerOf = (url: string | undefined): ContainerFormat | null | undefined => {
  const ext = url ? extensionOf(url) : null;
  return ext !== null && Object.hasOwn(CONTAINER_OF_EXTENSION, ext) ? CONTAINER_OF_EXTENSION[ext] : undefined;
};

/** The container of the result: config.result_format, else what result_url's extension names, else mp4. */
export function resultFormatOf(req: ResultRequest): ContainerFormat {
  return req.config?.result_format ?? containerOf(req.result_url) ?? 'mp4';
}

/** A result_url whose extension names another container than the one written cannot be honoured. */
export function checkResultFormat(req: ResultRequest): void {
  const container = containerOf(req.result_url);
  if (container === undefined) return;
  const ext = extensionOf(req.result_url!)!;
  if (container === null) {
    throw rejected('ConfigError', 'result_url', `the extension .${ext} names a container the service does not write (it writes .mp4 or .mov)`, {
      extension: ext,
    });
  }
  const asked = req.config?.result_format;
  if (asked !== undefined && asked !== container) {
    throw rejected('ConfigError', 'result_url', `the extension .${ext} contradicts config.result_format ${asked}`, {
      extension: ext,
      result_format: asked,
    });
  }
}
