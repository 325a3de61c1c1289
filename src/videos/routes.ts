import type { Route } from '../platform/module.ts';
import { deleteVideo, uploadVideo, type VideoUploadDeps } from './upload.ts';

export function videoRoutes(deps: VideoUploadDeps): Route[] {
  return [
    {
      method: 'post', path: '/videos', tag: 'Media',
      summary: `Upload a video (the request body: mp4, mov or webm, at most ${deps.maxBytes} bytes); answers {id, url, duration, width, height, has_audio, size} with a storage URL for a consent's or an avatar's source_url`,
      // Streamed to disk under its own limit.
      bodyLimit: 'stream',
      rawBody: { contentType: 'application/octet-stream', description: 'the video file\'s bytes (video/mp4, video/quicktime, video/webm or application/octet-stream)' },
      ok: { status: 201, description: '{id, url, duration, width, height, has_audio, size}' },
      errors: ['BadRequestError', 'PayloadTooLargeError', 'AuthorizationError'],
      handler: async (c) => c.json(await uploadVideo(deps, c.get('user').id, c.req.raw.body, c.req.header('content-length')), 201),
    },
    {
      method: 'delete', path: '/videos/{id}', tag: 'Media', summary: 'Delete an uploaded video',
      params: [{ name: 'id', in: 'path', description: 'the id POST /videos answered', required: true }],
      ok: { status: 200, description: '{id, deleted: true}' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await deleteVideo(deps, c.get('user').id, c.req.param('id')!)),
    },
  ];
}
