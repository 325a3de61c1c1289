/** The pictures a stream opens with: the one streamed and the one behind the person, fetched into its scratch folder. */
import { ApiError } from '../errors.ts';
import type { BackgroundInput } from '../compute/interface.ts';
import { inputFile, type InputFileDeps } from '../media/input-file.ts';
import type { StreamSource } from './interface.ts';

const MAX_PICTURE_BYTES = 10 * 1024 * 1024;

export function streamPictures(input: InputFileDeps) {
  function fetchPicture(userId: string, url: string, workDir: string, name: string, field: string, what: string): Promise<string> {
    const ext = /\.jpe?g(?:[?#]|$)/i.test(url) ? '.jpg' : '.png';
    return inputFile(input, {
      url, userId, workDir, fileName: `${name}${ext}`, maxBytes: MAX_PICTURE_BYTES,
      accept: (t) => t === '' || /^(?:image\/|application\/octet-stream)/i.test(t),
      missing: () => new ApiError('BadRequestError', `Invalid request body: ${field} names an object that does not exist in your media store`),
      tooLarge: () => new ApiError('InvalidFileSizeError', `${what[0]!.toUpperCase()}${what.slice(1)} is larger than the limit of ${MAX_PICTURE_BYTES} bytes`),
      failed: (message) => new ApiError('BadRequestError', `Could not load ${what}: ${message}`),
    });
  }

  return {
    async pictureOf(userId: string, source: StreamSource, workDir: string): Promise<string> {
      if (source.sourcePath) return source.sourcePath;
      return fetchPicture(userId, source.sourceUrl, workDir, 'source', 'source_url', 'the picture');
    },

    /** The picture behind the person: fetched once, here, when the stream opens (the renderer scales it to the frame). */
    async backgroundOf(userId: string, source: StreamSource, workDir: string): Promise<BackgroundInput | undefined> {
      if (source.backgroundUrl === undefined) return source.background;
      return { kind: 'image', path: await fetchPicture(userId, source.backgroundUrl, workDir, 'background', 'background.source_url', 'the background picture') };
    },
  };
}
