import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { jsonBody } from '../body.ts';
import { parsePage } from '../../pagination.ts';
import { createTool, deleteTool, fetchTool, pageTools, replaceTool } from '../../tools/service.ts';
import { callTool, type ToolCallDeps } from '../../tools/call.ts';

export function toolRoutes(deps: ToolCallDeps) {
  return new Hono<AppEnv>()
    .post('/tools', async (c) => c.json(createTool(deps, c.var.user.id, await jsonBody(c)), 201))
    .get('/tools', (c) => {
      const { limit, cursor } = parsePage(c.req.query());
      return c.json(pageTools(deps, c.var.user.id, limit, cursor));
    })
    .get('/tools/:id', (c) => c.json(fetchTool(deps, c.var.user.id, c.req.param('id'))))
    .put('/tools/:id', async (c) => c.json(replaceTool(deps, c.var.user.id, c.req.param('id'), await jsonBody(c))))
    .delete('/tools/:id', (c) => c.json(deleteTool(deps, c.var.user.id, c.req.param('id'))))
    .post('/tools/:id/calls', async (c) => c.json(await callTool(deps, c.var.user.id, c.req.param('id'), await jsonBody(c))));
}
