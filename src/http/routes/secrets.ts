import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { jsonBody } from '../body.ts';
import { MAX_PAGE_SIZE, parsePage } from '../../pagination.ts';
import type { SecretDeps } from '../../secrets/deps.ts';
import { createSecret, deleteSecret, fetchSecret, pageSecrets, updateSecret } from '../../secrets/service.ts';

/**
 * Secrets. The list answers a bare array (as the hosted service does, so existing clients keep
 * working) and pages through headers: `X-Next-Token` and `Link: <...>; rel="next"`.
 */
export function secretRoutes(deps: SecretDeps, publicUrl: string) {
  return new Hono<AppEnv>()
    .post('/secrets', async (c) => c.json(await createSecret(deps, c.var.user.id, await jsonBody(c)), 201))
    .get('/secrets', async (c) => {
      // A bare array, as the hosted service answers: the largest page by default, so clients
      // written for it (which do not page) see up to 100 secrets.
      const { limit, cursor } = parsePage(c.req.query(), MAX_PAGE_SIZE);
      const page = await pageSecrets(deps, c.var.user.id, limit, cursor);
      if (page.token) {
        c.header('X-Next-Token', page.token);
        c.header('Link', `<${publicUrl}/secrets?limit=${limit}&token=${page.token}>; rel="next"`);
      }
      return c.json(page.secrets);
    })
    .get('/secrets/:id', async (c) => c.json(await fetchSecret(deps, c.var.user.id, c.req.param('id'))))
    .put('/secrets/:id', async (c) => c.json(await updateSecret(deps, c.var.user.id, c.req.param('id'), await jsonBody(c))))
    .delete('/secrets/:id', async (c) => c.json(await deleteSecret(deps, c.var.user.id, c.req.param('id'))));
}
