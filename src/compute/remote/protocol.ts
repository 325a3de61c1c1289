import { extname } from 'node:path';
import type { ResultFormat } from '../interface.ts';
import type { FileBrand } from '../tasks/task.ts';

/**
 * File types of the worker protocol that every task kind shares: the content type and brand of
 * each result format, and input types both ways. What a task of each kind keeps and shows is
 * its own (src/compute/tasks/).
 */

export const RESULT_CONTENT_TYPE: Record<ResultFormat, string> = { mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm' };

/** How a result file of each format must start: an ftyp box of this major brand, or (webm) the EBML magic. */
export const RESULT_BRAND: Record<ResultFormat, FileBrand> = {
  mp4: { ftyp: 'isom' },
  mov: { ftyp: 'qt  ' },
  webm: { magic: '1a45dfa3' },
};

/** A result file of each format, in words (an upload that is not one is refused with this). */
export const RESULT_TEXT: Record<ResultFormat, string> = {
  mp4: 'an mp4 (ISO base media, brand isom)',
  mov: 'a QuickTime mov (brand "qt  ")',
  webm: 'a WebM (EBML)',
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

/** First byte of a binary message on a stream socket (either way): what the rest is. */
export const PACKET_VIDEO = 1;
export const PACKET_AUDIO = 2;
