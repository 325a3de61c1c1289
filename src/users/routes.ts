import type { Route } from '../platform/module.ts';
import { idParam, pageParams } from '../http/params.ts';
import { parsePage } from '../pagination.ts';
import { createOwnKey, pageOwnKeys, revokeOwnKey, type UserDeps } from './accounts.ts';
import { MAX_ACTIVE_KEYS } from './contract.ts';
import { ApiKey, ApiKeyList, NewApiKey } from './schemas.ts';

/** A person's own API keys: list, create (shown once), revoke. The operator's verbs are the CLI's `keys` commands. */
export function keyRoutes(deps: UserDeps): Route[] {
  return [
    {
      method: 'get', path: '/keys', summary: 'List your API keys, newest first (never a key itself)', tag: 'Keys', params: pageParams,
      ok: { status: 200, schema: ApiKeyList, description: 'a page of your keys, revoked ones included' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const user = c.get('user');
        const { limit, cursor } = parsePage(c.req.query());
        return c.json(await pageOwnKeys(deps, user.id, { limit, cursor, ...(user.keyId ? { currentKeyId: user.keyId } : {}) }));
      },
    },
    {
      method: 'post', path: '/keys', summary: 'Create an API key; the answer shows it this once', tag: 'Keys',
      description: `At most ${MAX_ACTIVE_KEYS} active keys per account: past that, 409 until one is revoked.`,
      ok: { status: 201, schema: NewApiKey, description: 'the new key, with api_key shown only in this answer' },
      errors: ['AuthorizationError', 'ConflictError'],
      handler: async (c) => c.json(await createOwnKey(deps, c.get('user').id), 201),
    },
    {
      method: 'delete', path: '/keys/{id}', summary: 'Revoke one of your API keys, effective from the next request', tag: 'Keys',
      description: 'The key this request came with may be revoked too: the answer has `current: true`, and that key\'s next request is refused (401). '
        + 'A key already revoked is answered unchanged; another account\'s key is 404.',
      params: [idParam('the key id (key_...)')],
      ok: { status: 200, schema: ApiKey, description: 'the revoked key' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => {
        const user = c.get('user');
        return c.json(await revokeOwnKey(deps, user.id, c.req.param('id')!, user.keyId));
      },
    },
  ];
}
