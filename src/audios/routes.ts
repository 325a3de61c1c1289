import type { Route } from '../platform/module.ts';
import { ApiError } from '../errors.ts';
import { deleteAudio, uploadAudio, type AudioUploadDeps } from './upload.ts';

export function audioRoutes(deps: AudioUploadDeps): Route[] {
  return [
    {
      method: 'post', path: '/audios', tag: 'Media',
      summary: `Upload an audio (multipart field "audio": wav, flac, mp3, m4a or mp4, at most ${deps.limits.maxBytes} bytes and ${deps.limits.maxSeconds} s); answers {id, url, duration} with a storage URL for script.audio_url`,
      bodyLimit: deps.limits.maxBytes + 64 * 1024,
      rawBody: { contentType: 'multipart/form-data', description: 'a form with one file field named "audio"' },
      ok: { status: 201, description: '{id, url, duration}' },
      errors: ['BadRequestError', 'InvalidFileSizeError', 'InvalidAudioDurationError', 'AuthorizationError', 'PayloadTooLargeError'],
      handler: async (c) => {
        if (!/^multipart\/form-data\b/i.test(c.req.header('content-type') ?? '')) {
          throw new ApiError('BadRequestError', 'Send the audio as multipart/form-data in a field named "audio"');
        }
        const form = await c.req.formData().catch(() => {
          throw new ApiError('BadRequestError', 'The multipart body cannot be read');
        });
        const audio = form.get('audio');
        if (!(audio instanceof Blob)) {
          throw new ApiError('BadRequestError', 'The form has no file field named "audio"', [{ field: 'audio', message: 'is required' }]);
        }
        return c.json(await uploadAudio(deps, c.var.user.id, Buffer.from(await audio.arrayBuffer())), 201);
      },
    },
    {
      method: 'delete', path: '/audios/{id}', tag: 'Media', summary: 'Delete an uploaded audio',
      params: [{ name: 'id', in: 'path', description: 'the id POST /audios answered', required: true }],
      ok: { status: 200, description: '{id, deleted: true}' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await deleteAudio(deps, c.var.user.id, c.req.param('id')!)),
    },
  ];
}
