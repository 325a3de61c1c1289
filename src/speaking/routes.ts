import type { Route } from '../platform/module.ts';
import { idParam } from '../http/params.ts';
import type { PendingVideos } from './pending.ts';

/** GET /<resource>/{id}/pending/{token}/{file}: a record as it renders, its HLS playlist and segments (signed URL, no API key). */
export function pendingRoute(tag: string, pending: Pick<PendingVideos, 'owner' | 'read'>): Route {
  const { owner } = pending;
  const what = owner.label;
  return {
    method: 'get', path: `/${owner.path}/{id}/pending/{token}/{file}`, summary: `The ${what} as it renders: its HLS playlist and segments (signed URL, no API key)`, tag,
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
