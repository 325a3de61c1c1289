import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { idParam, pageParams } from '../http/params.ts';
import { parsePage } from '../pagination.ts';
import { Tool, ToolBody, ToolCallBody, ToolCallResult, ToolList, ToolValidation } from './schemas.ts';
import { createTool, deleteTool, fetchTool, pageTools, replaceTool, validateTool } from './service.ts';
import { callTool, type ToolCallDeps } from './call.ts';

const id = idParam('the tool id');

export function toolRoutes(deps: ToolCallDeps): Route[] {
  return [
    {
      method: 'post', path: '/tools', summary: 'Define a server or client tool', tag: 'Tools', body: ToolBody,
      ok: { status: 201, schema: Tool, description: 'the tool' }, errors: ['BadRequestError', 'AuthorizationError', 'NotFoundError', 'PayloadTooLargeError'],
      handler: async (c) => c.json(await createTool(deps, c.get('user').id, await jsonBody(c)), 201),
    },
    {
      method: 'post', path: '/tools/validate', summary: 'Check a tool body as POST /tools and PUT /tools/{id} would, saving nothing', tag: 'Tools', body: ToolBody,
      description:
        'Runs every check of POST /tools: the body against ToolBody, `schema.parameters` as a JSON Schema of an object that the service compiles (draft-07, local `$ref`s only, ' +
        'RE2 patterns), URL placeholders, https when `auth` is set, and `auth.secret_id` being one of your secrets. A valid body answers 200; an invalid one the same ' +
        'JsonError POST /tools would answer, with `details` naming each field. Nothing is stored and no audit row is written: an editor may call it as a person types.',
      ok: { status: 200, schema: ToolValidation, description: 'the body would be accepted' }, errors: ['BadRequestError', 'AuthorizationError', 'NotFoundError', 'PayloadTooLargeError'],
      handler: async (c) => c.json(await validateTool(deps, c.get('user').id, await jsonBody(c))),
    },
    {
      method: 'get', path: '/tools', summary: 'List your tools, newest first', tag: 'Tools', params: pageParams,
      ok: { status: 200, schema: ToolList, description: 'a page of tools' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        return c.json(await pageTools(deps, c.get('user').id, limit, cursor));
      },
    },
    {
      method: 'get', path: '/tools/{id}', summary: 'Get a tool', tag: 'Tools', params: [id],
      ok: { status: 200, schema: Tool, description: 'the tool' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await fetchTool(deps, c.get('user').id, c.req.param('id')!)),
    },
    {
      method: 'put', path: '/tools/{id}', summary: 'Replace a tool (a new auth.secret_id swaps the secret)', tag: 'Tools', params: [id], body: ToolBody,
      ok: { status: 200, schema: Tool, description: 'the tool' }, errors: ['BadRequestError', 'AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await replaceTool(deps, c.get('user').id, c.req.param('id')!, await jsonBody(c))),
    },
    {
      method: 'delete', path: '/tools/{id}', summary: 'Delete a tool', tag: 'Tools', params: [id],
      ok: { status: 200, schema: Tool, description: 'the deleted tool' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await deleteTool(deps, c.get('user').id, c.req.param('id')!)),
    },
    {
      method: 'post', path: '/tools/{id}/calls', summary: 'Call a server tool with input checked against its parameters', tag: 'Tools', params: [id],
      body: ToolCallBody, ok: { status: 200, schema: ToolCallResult, description: 'the upstream answer, credentials masked' },
      errors: ['BadRequestError', 'ValidationError', 'AuthorizationError', 'NotFoundError', 'ConflictError', 'BadGatewayError', 'GatewayTimeoutError'],
      handler: async (c) => c.json(await callTool(deps, c.get('user').id, c.req.param('id')!, await jsonBody(c))),
    },
  ];
}
