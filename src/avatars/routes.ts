import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { idParam, pageParams } from '../http/params.ts';
import { parsePage } from '../pagination.ts';
import { Avatar, AvatarList } from '../schemas/avatars.ts';
import type { AvatarDeps } from './deps.ts';
import { createAvatar, fetchAvatar, pageAvatars, removeAvatar } from './create.ts';

const id = idParam('the avatar id');
const TAG = 'Avatars';

/** Mounted before the clip routes, so /clips/avatars is not read as a clip id. */
export function avatarRoutes(deps: AvatarDeps): Route[] {
  return [
    {
      method: 'post', path: '/clips/avatars', summary: 'Create a premium-plus avatar from footage and a verified consent: checked, then trained into a presenter', tag: TAG,
      body: deps.schemas.CreateAvatar,
      ok: { status: 201, schema: Avatar, description: 'accepted: its footage is checked, then it is trained' },
      errors: ['BadRequestError', 'ValidationError', 'ConsentError', 'AuthorizationError', 'InsufficientCreditsError', 'NotFoundError'],
      handler: async (c) => c.json(await createAvatar(deps, c.var.user, await jsonBody(c)), 201),
    },
    {
      method: 'get', path: '/clips/avatars', summary: 'List your avatars, newest first', tag: TAG, params: pageParams,
      ok: { status: 200, schema: AvatarList, description: 'a page of avatars' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        return c.json(await pageAvatars(deps, c.var.user.id, limit, cursor));
      },
    },
    {
      method: 'get', path: '/clips/avatars/{id}', summary: 'Get an avatar, with each footage check as measured', tag: TAG, params: [id],
      ok: { status: 200, schema: Avatar, description: 'the avatar record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await fetchAvatar(deps, c.var.user.id, c.req.param('id')!)),
    },
    {
      method: 'delete', path: '/clips/avatars/{id}', summary: 'Delete an avatar, its presenter and their media', tag: TAG, params: [id],
      ok: { status: 200, schema: Avatar, description: 'the deleted record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await removeAvatar(deps, c.var.user.id, c.req.param('id')!)),
    },
  ];
}
