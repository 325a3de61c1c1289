import type { Route, RouteParam } from '../../platform/module.ts';
import { jsonBody } from '../../http/body.ts';
import type { AgentStore } from '../store.ts';
import { ClientKeyList, CreateClientKey, NewClientKey, UpdateClientKey } from './schemas.ts';
import { createClientKey, listClientKeys, revokeClientKey, updateClientKey, type ClientKeyDeps } from './service.ts';

const agentId: RouteParam = { name: 'agentId', in: 'path', description: 'the agent id', required: true };
const clientKey: RouteParam = { name: 'clientKey', in: 'path', description: 'the client key id (ck_...), as created or listed; never the key itself', required: true };

/**
 * An agent's client keys, in the hosted service's shapes (`/agents/{agentId}/client-keys`):
 * for an API key or a bearer token, never for a client key (default deny). Another user's
 * agent is not found.
 */
export function clientKeyRoutes(deps: ClientKeyDeps, agents: Pick<AgentStore, 'get'>): Route[] {
  const tag = 'Client keys';
  return [
    {
      method: 'post', path: '/agents/{agentId}/client-keys', summary: 'Create a client key for a browser page: one agent, from the listed origins; the answer shows it this once', tag,
      params: [agentId], body: CreateClientKey,
      ok: { status: 201, schema: NewClientKey, description: 'the key (shown once) and its fields' },
      errors: ['BadRequestError', 'AuthorizationError', 'PermissionError', 'NotFoundError', 'PayloadTooLargeError'],
      handler: async (c) => c.json(await createClientKey(deps, c.get('user').id, c.req.param('agentId')!, await jsonBody(c)), 201),
    },
    {
      method: 'get', path: '/agents/{agentId}/client-keys', summary: "List an agent's active client keys (never a key itself)", tag, params: [agentId],
      ok: { status: 200, schema: ClientKeyList, description: 'the active keys, newest first' }, errors: ['AuthorizationError', 'PermissionError', 'NotFoundError'],
      handler: async (c) => {
        const userId = c.get('user').id;
        const id = c.req.param('agentId')!;
        return c.json(await listClientKeys(deps, userId, id, async () => (await agents.get(userId, id)) !== undefined));
      },
    },
    {
      method: 'patch', path: '/agents/{agentId}/client-keys/{clientKey}', summary: "Change a client key's allowed origins or name", tag, params: [agentId, clientKey], body: UpdateClientKey,
      ok: { status: 204, description: 'changed' }, errors: ['BadRequestError', 'AuthorizationError', 'PermissionError', 'NotFoundError', 'PayloadTooLargeError'],
      handler: async (c) => {
        await updateClientKey(deps, c.get('user').id, c.req.param('agentId')!, c.req.param('clientKey')!, await jsonBody(c));
        return c.body(null, 204);
      },
    },
    {
      method: 'delete', path: '/agents/{agentId}/client-keys/{clientKey}', summary: 'Revoke a client key: its next request is refused (401)', tag, params: [agentId, clientKey],
      ok: { status: 204, description: 'revoked' }, errors: ['AuthorizationError', 'PermissionError', 'NotFoundError'],
      handler: async (c) => {
        await revokeClientKey(deps, c.get('user').id, c.req.param('agentId')!, c.req.param('clientKey')!);
        return c.body(null, 204);
      },
    },
  ];
}
