import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { idParam, pageParams } from '../http/params.ts';
import { parsePage } from '../pagination.ts';
import { CreateTalkResponse, Talk, TalkList } from '../schemas/talks.ts';
import type { TalkDeps } from './kind.ts';
import { createTalk } from './create.ts';
import { fetchTalk, pageTalks, removeTalk } from './service.ts';
import { pendingRoute } from '../speaking/pending-route.ts';

const id = idParam('the talk id');

export function talkRoutes(deps: TalkDeps): Route[] {
  return [
    {
      method: 'post', path: '/talks', summary: 'Create a talk: a photo speaking a script', tag: 'Talks',
      body: deps.schemas.CreateTalk,
      ok: { status: 201, schema: CreateTalkResponse, description: 'accepted; the talk is queued' },
      errors: ['BadRequestError', 'ValidationError', 'InvalidFileSizeError', 'InvalidAudioDurationError', 'InvalidImageResolutionError', 'AuthorizationError', 'PermissionError', 'InsufficientCreditsError', 'PayloadTooLargeError', 'ServiceUnavailableError'],
      handler: async (c) => c.json(await createTalk(deps, c.var.user, await jsonBody(c)), 201),
    },
    {
      method: 'get', path: '/talks', summary: 'List your talks, newest first', tag: 'Talks', params: pageParams,
      ok: { status: 200, schema: TalkList, description: 'a page of talks' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        return c.json(await pageTalks(deps, c.var.user.id, limit, cursor));
      },
    },
    {
      method: 'get', path: '/talks/{id}', summary: 'Get a talk', tag: 'Talks', params: [id],
      ok: { status: 200, schema: Talk, description: 'the talk record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await fetchTalk(deps, c.var.user.id, c.req.param('id')!)),
    },
    pendingRoute('Talks', deps.pending),
    {
      method: 'delete', path: '/talks/{id}', summary: 'Delete a talk and its stored media', tag: 'Talks', params: [id],
      ok: { status: 200, schema: Talk, description: 'the deleted record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await removeTalk(deps, c.var.user.id, c.req.param('id')!)),
    },
  ];
}
