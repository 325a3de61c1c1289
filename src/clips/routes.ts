import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { CreateClipResponse } from './schemas.ts';
import type { ClipDeps } from './deps.ts';
import { createClip } from './create.ts';
import { pendingRoute } from '../speaking/routes.ts';

export function clipRoutes(deps: ClipDeps): Route[] {
  return deps.lifecycle.routes(
    {
      method: 'post', path: '/clips', summary: 'Create a clip: a presenter speaking a script', tag: 'Clips',
      body: deps.schemas.CreateClip,
      ok: { status: 201, schema: CreateClipResponse, description: 'accepted; the clip is queued' },
      errors: ['BadRequestError', 'ValidationError', 'InvalidFileSizeError', 'InvalidAudioDurationError', 'InvalidImageResolutionError', 'AuthorizationError', 'InsufficientCreditsError', 'PayloadTooLargeError', 'ServiceUnavailableError'],
      handler: async (c) => c.json(await createClip(deps, c.get('user'), await jsonBody(c)), 201),
    },
    pendingRoute('Clips', deps.pending),
  );
}
