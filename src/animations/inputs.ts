/**
 * The render job's inputs as local files: fetched through the guarded client (https) or
 * found in the owner's media store (storage scheme), then held to the rules of media/checks.ts and checks.ts.
 * A broken rule or a failed fetch throws a RenderError: the record ends in error with it.
 */
import { extname } from 'node:path';
import { RenderError } from '../errors.ts';
import { inputFile } from '../media/input-file.ts';
import type { DriverInput, LogoInput } from '../compute/interface.ts';
import type { CreateAnimationBody } from './schemas.ts';
import { parseBankUrl } from './driver-bank.ts';
import { SAMPLE_SOURCE } from './deps.ts';
import type { RenderDeps } from './render.ts';
import type { Animation, AnimationDetails } from './kind.ts';
import { INPUT_ROLES, InputRejected, downloadTooLarge, inspectImage, inspectVideo, maxBytesOf, type ImageInfo, type InputRole } from '../media/checks.ts';
import { checkFace, checkLogoPlacement, inspectSample } from './checks.ts';

const IMAGE_TYPES = /^image\/(?:jpeg|png|tiff|bmp|x-ms-bmp|webp)$/i;
const VIDEO_TYPES = /^(?:video\/[\w.+-]+|application\/octet-stream|application\/mp4)$/i;
const image = (type: string) => IMAGE_TYPES.test(type) || type === 'application/octet-stream' || type === '';
const video = (type: string) => VIDEO_TYPES.test(type) || type === '';
/** Content types each download accepts (the bytes are checked afterwards in any case). */
const ACCEPT: Record<InputRole, (type: string) => boolean> = { source: image, logo: image, background: image, driver: video, overlay: video };

export interface RenderInputs {
  sourcePath: string;
  driver: DriverInput;
  logo: LogoInput;
  overlayPath?: string;
}

type Context = { deps: RenderDeps; row: Animation; workDir: string };

/** The local file of an input URL. A failure names the host at most, never the URL. */
function fetchInput({ deps, row, workDir }: Context, role: InputRole, url: string): Promise<string> {
  const { what, failKind } = INPUT_ROLES[role];
  const named = extname(new URL(url).pathname) || (ACCEPT[role] === video ? '.mp4' : '');
  return inputFile(deps, {
    url, userId: row.userId, workDir, fileName: `${role}-download${named}`,
    maxBytes: maxBytesOf(role, deps.config), accept: ACCEPT[role],
    missing: () => new RenderError(failKind, `The ${what} no longer exists in your media store`),
    tooLarge: () => downloadTooLarge(role, deps.config),
    failed: (message) => new RenderError(failKind, `Could not load the ${what}: ${message}`),
  });
}

/** The source image, checked, and kept as the record's own copy (which source_url then signs). */
async function obtainSource(ctx: Context, req: CreateAnimationBody): Promise<{ path: string; info: ImageInfo }> {
  const { deps, row } = ctx;
  const { sourceKey } = row.details;
  const kept = sourceKey ? await deps.media.localFile(row.userId, sourceKey, ctx.workDir) : null;
  const file = kept ?? (req.source_url === undefined ? SAMPLE_SOURCE : await fetchInput(ctx, 'source', req.source_url));
  const info = req.source_url === undefined ? await inspectSample(file) : await inspectImage('source', file, deps.config);
  const sourceSize = { width: info.width, height: info.height };
  let path = kept;
  if (!path) {
    const key = `animations/${row.id}/source.${info.format === 'jpeg' ? 'jpg' : info.format}`;
    await deps.media.putFile(row.userId, key, file, `image/${info.format}`);
    path = file;
    row.details = { ...row.details, sourceKey: key };
  }
  // The stored copy, and the source's size (with stitch it sets the frame the default logo is placed in).
  if (path !== kept || !row.details.sourceSize) {
    const details: AnimationDetails = { ...row.details, sourceSize };
    await deps.lifecycle.setDetails(row.id, details);
    row.details = details;
  }
  return { path, info };
}

/** A driver or overlay video, fetched and held to the byte limits. */
async function obtainVideo(ctx: Context, role: 'driver' | 'overlay', url: string): Promise<string> {
  const path = await fetchInput(ctx, role, url);
  await inspectVideo(role, path, ctx.deps.config);
  return path;
}

async function obtainDriver(ctx: Context): Promise<DriverInput> {
  const bank = parseBankUrl(ctx.row.details.driverResolved);
  if (bank?.name) return { kind: 'bank', category: bank.category, name: bank.name };
  return { kind: 'video', path: await obtainVideo(ctx, 'driver', ctx.row.details.driverResolved) };
}

async function obtainLogo(ctx: Context, req: CreateAnimationBody): Promise<{ logo: LogoInput; info: ImageInfo | null }> {
  const logo = req.config?.logo;
  if (logo === false) return { logo: { kind: 'none' }, info: null };
  if (logo === undefined || logo === true) return { logo: { kind: 'default' }, info: null };
  const path = await fetchInput(ctx, 'logo', logo.url);
  const info = await inspectImage('logo', path, ctx.deps.config);
  return { logo: { kind: 'image', path, position: [logo.position[0]!, logo.position[1]!] }, info };
}

/**
 * Every input of the render, in the order that fails cheapest first: the source and the
 * face on it, then the logo and where it lands, then the videos.
 */
export async function obtainInputs(deps: RenderDeps, row: Animation, req: CreateAnimationBody, workDir: string): Promise<RenderInputs> {
  const ctx: Context = { deps, row, workDir };
  try {
    const source = await obtainSource(ctx, req);
    checkFace(req.face, source.info);
    const { logo, info } = await obtainLogo(ctx, req);
    checkLogoPlacement(req, source.info, info);
    const driver = await obtainDriver(ctx);
    const overlay = req.config?.overlay;
    return { sourcePath: source.path, driver, logo, ...(overlay ? { overlayPath: await obtainVideo(ctx, 'overlay', overlay) } : {}) };
  } catch (err) {
    if (err instanceof InputRejected) throw err.toRenderError();
    throw err;
  }
}
