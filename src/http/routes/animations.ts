import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import type { AnimationDeps } from '../../animations/deps.ts';
import { createAnimation } from '../../animations/create.ts';
import { fetchAnimation, pageAnimations, removeAnimation } from '../../animations/service.ts';
import { DRIVER_BANK } from '../../animations/driver-bank.ts';
import { jsonBody } from '../body.ts';
import { parsePage } from '../../pagination.ts';

/** Thin handlers: parse, call one verb, shape the response. */
export function animationRoutes(deps: AnimationDeps) {
  return new Hono<AppEnv>()
    .post('/animations', async (c) => c.json(await createAnimation(deps, c.var.user, await jsonBody(c)), 201))
    .get('/animations', async (c) => {
      const { limit, cursor } = parsePage(c.req.query());
      return c.json(await pageAnimations(deps, c.var.user.id, limit, cursor));
    })
    .get('/animations/drivers', (c) =>
      c.json({
        categories: Object.entries(DRIVER_BANK).map(([category, { description, drivers }]) => ({
          category,
          description,
          url: `bank://${category}/`,
          drivers: drivers.map((name) => `bank://${category}/${name}`),
        })),
      }),
    )
    .get('/animations/:id', async (c) => c.json(await fetchAnimation(deps, c.var.user.id, c.req.param('id'))))
    .delete('/animations/:id', async (c) => c.json(await removeAnimation(deps, c.var.user.id, c.req.param('id'))));
}
