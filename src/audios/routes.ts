import type { Route } from '../platform/module.ts';
import { formFile } from '../http/multipart.ts';
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
      handler: async (c) => c.json(await uploadAudio(deps, c.get('user').id, await formFile(c, 'audio', 'audio')), 201),
    },
    {
      method: 'delete', path: '/audios/{id}', tag: 'Media', summary: 'Delete an uploaded audio',
      params: [{ name: 'id', in: 'path', description: 'the id POST /audios answered', required: true }],
      ok: { status: 200, description: '{id, deleted: true}' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await deleteAudio(deps, c.get('user').id, c.req.param('id')!)),
    },
  ];
}
