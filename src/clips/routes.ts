import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { idParam, pageParams } from '../http/params.ts';
import { parsePage } from '../pagination.ts';
import { Clip, ClipList, CreateClipResponse } from '../schemas/clips.ts';
import type { ClipDeps } from './deps.ts';
import { createClip } from './create.ts';
import { fetchClip, pageClips, removeClip } from './service.ts';
import { pendingRoute } from '../speaking/pending-route.ts';

const id = idParam('the clip id');

export function clipRoutes(deps: ClipDeps): Route[] {
  return [
    {
      method: 'post', path: '/clips', summary: 'Create a clip: a presenter speaking a script', tag: 'Clips',
      body: deps.schemas.CreateClip,
      ok: { status: 201, schema: CreateClipResponse, description: 'accepted; the clip is queued' },
      errors: ['BadRequestError', 'ValidationError', 'InvalidFileSizeError', 'InvalidAudioDurationError', 'InvalidImageResolutionError', 'AuthorizationError', 'InsufficientCreditsError', 'PayloadTooLargeError', 'ServiceUnavailableError'],
      handler: async (c) => c.json(await createClip(deps, c.var.user, await jsonBody(c)), 201),
    },
    {
      method: 'get', path: '/clips', summary: 'List your clips, newest first', tag: 'Clips', params: pageParams,
      ok: { status: 200, schema: ClipList, description: 'a page of clips' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        return c.json(await pageClips(deps, c.var.user.id, limit, cursor));
      },
    },
    {
      method: 'get', path: '/clips/{id}', summary: 'Get a clip', tag: 'Clips', params: [id],
      ok: { status: 200, schema: Clip, description: 'the clip record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await fetchClip(deps, c.var.user.id, c.req.param('id')!)),
    },
    pendingRoute('Clips', deps.pending),
    {
      method: 'delete', path: '/clips/{id}', summary: 'Delete a clip and its stored media', tag: 'Clips', params: [id],
      ok: { status: 200, schema: Clip, description: 'the deleted record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await removeClip(deps, c.var.user.id, c.req.param('id')!)),
    },
  ];
}
