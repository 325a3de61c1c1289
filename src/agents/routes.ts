import type { Route, RouteParam } from '../platform/module.ts';
import { ApiError } from '../errors.ts';
import { jsonBody } from '../http/body.ts';
import { idParam, pageParams } from '../http/params.ts';
import { MAX_PAGE_SIZE, parsePage } from '../pagination.ts';
import { agentRuntime, createAgent, deleteAgent, fetchAgent, pageAgents, updateAgent, type AgentDeps } from './service.ts';

const id = idParam('the agent id');

/** The hosted list's sort parameters: only the order mimic lists in is accepted (never silently another). */
const sortParams: RouteParam[] = [
  { name: 'sort_by', in: 'query', description: 'created_at only (the default)' },
  { name: 'order', in: 'query', description: 'descending only (the default): newest first' },
];

function checkSort(query: Record<string, string>): void {
  if (query.sort_by !== undefined && query.sort_by !== 'created_at') {
    throw new ApiError('BadRequestError', 'sort_by must be created_at: agents are listed by creation time', [{ field: 'sort_by', message: 'must be created_at' }]);
  }
  if (query.order !== undefined && query.order !== 'descending') {
    throw new ApiError('BadRequestError', 'order must be descending: agents are listed newest first', [{ field: 'order', message: 'must be descending' }]);
  }
}

export function agentRoutes(deps: AgentDeps): Route[] {
  const { CreateAgent, UpdateAgent, Agent, AgentList, AgentRuntime } = deps.schemas;
  return [
    {
      method: 'post', path: '/agents', summary: 'Create an agent: a presenter, a language model and the tools it may call', tag: 'Agents', body: CreateAgent,
      ok: { status: 201, schema: Agent, description: 'the agent' },
      errors: ['BadRequestError', 'ValidationError', 'AuthorizationError', 'PermissionError', 'PayloadTooLargeError', 'ServiceUnavailableError'],
      handler: async (c) => c.json(await createAgent(deps, c.get('user'), await jsonBody(c)), 201),
    },
    {
      // Before /agents/{id}: "me" is a list, not an id.
      method: 'get', path: '/agents/me', summary: 'List your agents, newest first', tag: 'Agents', params: [...pageParams, ...sortParams],
      ok: { status: 200, schema: AgentList, description: 'a page of agents; token continues it' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const query = c.req.query();
        checkSort(query);
        const { limit, cursor } = parsePage(query, MAX_PAGE_SIZE);
        return c.json(await pageAgents(deps, c.get('user').id, limit, cursor));
      },
    },
    {
      method: 'get', path: '/agents/{id}', summary: 'Get an agent', tag: 'Agents', params: [id],
      ok: { status: 200, schema: Agent, description: 'the agent' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await fetchAgent(deps, c.get('user').id, c.req.param('id')!)),
    },
    {
      method: 'get', path: '/agents/{id}/runtime', summary: 'What the agents SDK reads before it connects: name, presenter type and voice, greetings', tag: 'Agents', params: [id],
      clientKey: { agentParam: 'id' },
      ok: { status: 200, schema: AgentRuntime, description: 'the agent as the SDK reads it' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await agentRuntime(deps, c.get('user').id, c.req.param('id')!)),
    },
    {
      method: 'patch', path: '/agents/{id}', summary: 'Change an agent: a JSON merge patch, then the whole agent is checked again', tag: 'Agents', params: [id], body: UpdateAgent,
      ok: { status: 200, schema: Agent, description: 'the agent' },
      errors: ['BadRequestError', 'ValidationError', 'AuthorizationError', 'PermissionError', 'NotFoundError', 'ConflictError', 'PayloadTooLargeError', 'ServiceUnavailableError'],
      handler: async (c) => c.json(await updateAgent(deps, c.get('user'), c.req.param('id')!, await jsonBody(c))),
    },
    {
      method: 'delete', path: '/agents/{id}', summary: 'Delete an agent', tag: 'Agents', params: [id],
      ok: { status: 200, schema: Agent, description: 'the deleted agent' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await deleteAgent(deps, c.get('user').id, c.req.param('id')!)),
    },
  ];
}
