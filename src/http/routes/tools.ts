import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { jsonBody } from '../body.ts';
import { parsePage } from '../../pagination.ts';
import { createTool, deleteTool, fetchTool, pageTools, replaceTool } from '../../tools/service.ts';
import { callTool, type ToolCallDeps } from '../../tools/call.ts';

export function toolRoutes(deps: ToolCallDeps) {
  return new Hono<AppEnv>()
    .post('/tools', async (c) => c.json(await createTool(deps, c.var.user.id, await jsonBody(c)), 201))
    .get('/tools', async (c) => {
      const { limit, cursor } = parsePage(c.req.query());
      return c.json(await pageTools(deps, c.var.user.id, limit, cursor));
    })
    .get('/tools/:id', async (c) => c.json(await fetchTool(deps, c.var.user.id, c.req.param('id'))))
    .put('/tools/:id', async (c) => c.json(await replaceTool(deps, c.var.user.id, c.req.param('id'), await jsonBody(c))))
    .delete('/tools/:id', async (c) => c.json(await deleteTool(deps, c.var.user.id, c.req.param('id'))))
    .post('/tools/:id/calls', async (c) => c.json(await callTool(deps, c.var.user.id, c.req.param('id'), await jsonBody(c))));
}
