import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { resourceReadRoutes } from '../http/resource-routes.ts';
import { Avatar, AvatarList } from './schemas.ts';
import type { AvatarDeps } from './deps.ts';
import { createAvatar, fetchAvatar, pageAvatars, removeAvatar } from './create.ts';

/** Mounted before the clip routes, so /clips/avatars is not read as a clip id. */
export function avatarRoutes(deps: AvatarDeps): Route[] {
  const reads = resourceReadRoutes({
    base: '/clips/avatars', one: 'avatar', many: 'avatars', tag: 'Avatars', record: Avatar, list: AvatarList, removes: 'its presenter and their media',
    page: (userId, limit, cursor) => pageAvatars(deps, userId, limit, cursor),
    fetch: (userId, id) => fetchAvatar(deps, userId, id),
    remove: (userId, id) => removeAvatar(deps, userId, id),
  });
  return [
    {
      method: 'post', path: '/clips/avatars', summary: 'Create a premium-plus avatar from footage and a verified consent: checked, then trained into a presenter', tag: 'Avatars',
      body: deps.schemas.CreateAvatar,
      ok: { status: 201, schema: Avatar, description: 'accepted: its footage is checked, then it is trained' },
      errors: ['BadRequestError', 'ValidationError', 'ConsentError', 'AuthorizationError', 'InsufficientCreditsError', 'NotFoundError'],
      handler: async (c) => c.json(await createAvatar(deps, c.var.user, await jsonBody(c)), 201),
    },
    reads.list,
    { ...reads.get, summary: 'Get an avatar, with each footage check as measured' },
    reads.remove,
  ];
}
