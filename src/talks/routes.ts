import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { CreateTalkResponse } from './schemas.ts';
import type { TalkDeps } from './kind.ts';
import { createTalk } from './create.ts';
import { pendingRoute } from '../speaking/routes.ts';

export function talkRoutes(deps: TalkDeps): Route[] {
  return deps.lifecycle.routes(
    {
      method: 'post', path: '/talks', summary: 'Create a talk: a photo speaking a script', tag: 'Talks',
      body: deps.schemas.CreateTalk,
      ok: { status: 201, schema: CreateTalkResponse, description: 'accepted; the talk is queued' },
      errors: ['BadRequestError', 'ValidationError', 'InvalidFileSizeError', 'InvalidAudioDurationError', 'InvalidImageResolutionError', 'AuthorizationError', 'PermissionError', 'InsufficientCreditsError', 'PayloadTooLargeError', 'ServiceUnavailableError'],
      handler: async (c) => c.json(await createTalk(deps, c.get('user'), await jsonBody(c)), 201),
    },
    pendingRoute('Talks', deps.pending),
  );
}
