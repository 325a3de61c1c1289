import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { idParam, pageParams } from '../http/params.ts';
import { MAX_PAGE_SIZE, parsePage } from '../pagination.ts';
import { CreateSecret, Secret, SecretList, UpdateSecret } from './schemas.ts';
import type { SecretDeps } from './deps.ts';
import { createSecret, deleteSecret, fetchSecret, pageSecrets, updateSecret } from './service.ts';

const id = idParam('the secret id');

/**
 * Secrets. The list answers a bare array (as the hosted service does, so existing clients keep
 * working) and pages through headers: `X-Next-Token` and `Link: <...>; rel="next"`.
 */
export function secretRoutes(deps: SecretDeps, publicUrl: string): Route[] {
  return [
    {
      method: 'post', path: '/secrets', summary: 'Store a credential (bearer, api_key or basic); oauth2 is connected (POST /secrets/oauth2/connections)', tag: 'Secrets',
      body: CreateSecret, ok: { status: 201, schema: Secret, description: 'the secret, with sanitized_secret only' },
      errors: ['BadRequestError', 'AuthorizationError', 'PayloadTooLargeError'],
      handler: async (c) => c.json(await createSecret(deps, c.get('user').id, await jsonBody(c)), 201),
    },
    {
      method: 'get', path: '/secrets', summary: 'List your secrets, newest first, each with the tools and agents that use it (next page: X-Next-Token / Link headers)', tag: 'Secrets', params: pageParams,
      ok: { status: 200, schema: SecretList, description: 'a page of secrets' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        // A bare array, as the hosted service answers: the largest page by default, so clients
        // written for it (which do not page) see up to 100 secrets.
        const { limit, cursor } = parsePage(c.req.query(), MAX_PAGE_SIZE);
        const page = await pageSecrets(deps, c.get('user').id, limit, cursor);
        if (page.token) {
          c.header('X-Next-Token', page.token);
          c.header('Link', `<${publicUrl}/secrets?limit=${limit}&token=${page.token}>; rel="next"`);
        }
        return c.json(page.secrets);
      },
    },
    {
      method: 'get', path: '/secrets/{id}', summary: 'Get a secret (never its value), with the tools and agents that use it', tag: 'Secrets', params: [id],
      ok: { status: 200, schema: Secret, description: 'the secret' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await fetchSecret(deps, c.get('user').id, c.req.param('id')!)),
    },
    {
      method: 'put', path: '/secrets/{id}', summary: 'Replace the stored credential; the next tool call uses it', tag: 'Secrets', params: [id],
      body: UpdateSecret, ok: { status: 200, schema: Secret, description: 'the secret' }, errors: ['BadRequestError', 'AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await updateSecret(deps, c.get('user').id, c.req.param('id')!, await jsonBody(c))),
    },
    {
      method: 'delete', path: '/secrets/{id}', summary: 'Delete a secret (409 while a tool refers to it)', tag: 'Secrets', params: [id],
      ok: { status: 200, schema: Secret, description: 'the deleted secret' }, errors: ['AuthorizationError', 'NotFoundError', 'ConflictError'],
      handler: async (c) => c.json(await deleteSecret(deps, c.get('user').id, c.req.param('id')!)),
    },
  ];
}
