import sharp from 'sharp';
import { ApiError } from '../errors.ts';
import type { IdFactory } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';

/** Image formats a source may have, told apart by their first bytes (never by a client's claim). */
const SIGNATURES: { ext: string; type: string; test: (b: Buffer) => boolean }[] = [
  { ext: 'jpg', type: 'image/jpeg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { ext: 'png', type: 'image/png', test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { ext: 'tiff', type: 'image/tiff', test: (b) => ['49492a00', '4d4d002a'].includes(b.subarray(0, 4).toString('hex')) },
  { ext: 'bmp', type: 'image/bmp', test: (b) => b[0] === 0x42 && b[1] === 0x4d && b.length > 26 },
];

export interface UploadedImage {
  id: string;
  /** A storage-scheme URL to pass as `source_url`. */
  url: string;
}

/**
 * POST /images: stores an uploaded photo in the caller's media store and answers with the
 * storage-scheme URL that `source_url` accepts. The bytes must be a decodable jpg, png,
 * tiff or bmp image.
 */
export interface UploadDeps {
  media: MediaAccess;
  newId: IdFactory;
  storageScheme: string;
  maxBytes: number;
}

export async function uploadImage(
  deps: UploadDeps,
  userId: string,
  file: { bytes: Buffer },
): Promise<UploadedImage> {
  const { bytes } = file;
  if (bytes.length === 0) throw new ApiError('BadRequestError', 'The image is empty', [{ field: 'image', message: 'is empty' }]);
  if (bytes.length > deps.maxBytes) {
    throw new ApiError('InvalidFileSizeError', `The image is larger than the limit of ${deps.maxBytes} bytes`, [
      { field: 'image', message: `must be at most ${deps.maxBytes} bytes` },
    ]);
  }
  const format = SIGNATURES.find((s) => s.test(bytes));
  if (!format) {
    throw new ApiError('BadRequestError', 'The file is not a jpg, png, tiff or bmp image', [{ field: 'image', message: 'is not a supported image' }]);
  }
  if (format.ext !== 'bmp') {
    try {
      const meta = await sharp(bytes).metadata();
      if (!meta.width || !meta.height) throw new Error('no size');
    } catch {
      throw new ApiError('BadRequestError', `The ${format.ext} image cannot be decoded`, [{ field: 'image', message: 'cannot be decoded' }]);
    }
  }
  const id = deps.newId('img');
  const key = `images/${id}.${format.ext}`;
  await deps.media.putBytes(userId, key, bytes, format.type);
  return { id, url: `${deps.storageScheme}://${key}` };
}
