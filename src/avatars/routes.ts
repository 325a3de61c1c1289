import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { Avatar } from './schemas.ts';
import type { AvatarDeps } from './deps.ts';
import { createAvatar } from './create.ts';

/** Mounted before the clip routes, so /clips/avatars is not read as a clip id. */
export function avatarRoutes(deps: AvatarDeps): Route[] {
  return deps.lifecycle.routes({
    method: 'post', path: '/clips/avatars', summary: 'Create a premium-plus avatar from footage and a verified consent: checked, then trained into a presenter', tag: 'Avatars',
    body: deps.schemas.CreateAvatar,
    ok: { status: 201, schema: Avatar, description: 'accepted: its footage is checked, then it is trained' },
    errors: ['BadRequestError', 'ValidationError', 'ConsentError', 'AuthorizationError', 'InsufficientCreditsError', 'NotFoundError'],
    handler: async (c) => c.json(await createAvatar(deps, c.get('user'), await jsonBody(c)), 201),
  });
}
