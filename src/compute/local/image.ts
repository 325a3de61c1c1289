/** Decoding the source picture to raw RGB, and cropping/scaling it. */
import sharp from 'sharp';
import { RenderError } from '../../errors.ts';
import { runFfmpeg } from '../../media/ffmpeg.ts';
import type { RgbImage } from './warp.ts';

async function viaSharp(input: string | Buffer): Promise<RgbImage> {
  const { data, info } = await sharp(input, { limitInputPixels: 100_000_000 })
    .rotate()
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`unexpected channel count ${info.channels}`);
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/** Decodes jpg/png/tiff with sharp; formats libvips lacks (bmp) go through ffmpeg. */
export async function decodeImage(path: string): Promise<RgbImage> {
  try {
    return await viaSharp(path);
  } catch {
    const r = await runFfmpeg(['-loglevel', 'error', '-i', path, '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1'], { timeoutMs: 30_000 });
    if (r.code === 0 && r.stdout.length > 0) {
      try {
        return await viaSharp(r.stdout);
      } catch { /* fall through */ }
    }
    throw new RenderError('SourceError', 'the source image could not be decoded');
  }
}

/** The square [left, top, size] of `img` cropped to `out` x `out` pixels. */
export async function cropSquare(img: RgbImage, left: number, top: number, size: number, out: number): Promise<RgbImage> {
  const data = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), {
    raw: { width: img.width, height: img.height, channels: 3 },
  })
    .extract({ left, top, width: size, height: size })
    .resize(out, out, { kernel: 'lanczos3' })
    .raw()
    .toBuffer();
  return { width: out, height: out, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/** `img` cut down to even width and height (H.264 with yuv420p needs them). */
export function evenSize(img: RgbImage): RgbImage {
  const w = img.width & ~1, h = img.height & ~1;
  if (w === img.width && h === img.height) return img;
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) data.set(img.data.subarray(y * img.width * 3, (y * img.width + w) * 3), y * w * 3);
  return { width: w, height: h, data };
}
