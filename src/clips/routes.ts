import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { idParam } from '../http/params.ts';
import { CreateClipResponse } from './schemas.ts';
import type { ClipDeps } from './deps.ts';
import { createClip } from './create.ts';
import type { PendingVideos } from './pending.ts';

export function clipRoutes(deps: ClipDeps): Route[] {
  return deps.lifecycle.routes(
    {
      method: 'post', path: '/clips', summary: 'Create a clip: a presenter speaking a script', tag: 'Clips',
      body: deps.schemas.CreateClip,
      ok: { status: 201, schema: CreateClipResponse, description: 'accepted; the clip is queued' },
      errors: ['BadRequestError', 'ValidationError', 'InvalidFileSizeError', 'InvalidAudioDurationError', 'InvalidImageResolutionError', 'AuthorizationError', 'InsufficientCreditsError', 'PayloadTooLargeError', 'ServiceUnavailableError'],
      handler: async (c) => c.json(await createClip(deps, c.var.user, await jsonBody(c)), 201),
    },
    pendingRoute('clips', 'Clips', deps.pending),
  );
}

/** GET /<resource>/{id}/pending/{token}/{file}: a clip or a talk as it renders, its HLS playlist and segments (signed URL, no API key). */
export function pendingRoute(resource: 'clips' | 'talks', tag: string, pending: Pick<PendingVideos, 'read'>): Route {
  const what = resource === 'clips' ? 'clip' : 'talk';
  return {
    method: 'get', path: `/${resource}/{id}/pending/{token}/{file}`, summary: `The ${what} as it renders: its HLS playlist and segments (signed URL, no API key)`, tag,
    access: 'public', security: [],
    params: [idParam(`the ${what} id`), { name: 'token', in: 'path', description: 'expiry and signature, as pending_url gives them', required: true }, { name: 'file', in: 'path', description: 'index.m3u8 or a segment', required: true }],
    ok: { status: 200, description: 'the playlist or a segment', contentType: 'application/vnd.apple.mpegurl' },
    errors: ['PermissionError', 'NotFoundError'],
    handler: async (c) => {
      const { bytes, contentType } = await pending.read(c.req.param('id')!, c.req.param('token')!, c.req.param('file')!);
      return c.body(new Uint8Array(bytes), 200, { 'content-type': contentType, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
    },
  };
}
