import { ApiError, notFound } from '../errors.ts';
import type { SecretRow } from '../db/schema.ts';
import { byCreation, toPage, type PageCursor } from '../pagination.ts';
import { validate } from '../schemas/ajv.ts';
import {
  CreateApiKeySecret, CreateBasicSecret, CreateBearerSecret, FORBIDDEN_HEADER_NAMES,
  UpdateApiKeySecret, UpdateBasicSecret, UpdateBearerSecret, UpdateOAuth2Secret, USAGE_LISTED,
  type SecretUsageView, type SecretView,
} from './schemas.ts';
import type { SecretUsage } from './store.ts';
import { auditRecord } from '../audit/contract.ts';
import { DEFAULT_API_KEY_HEADER, type SecretType } from '../egress/credential.ts';
import { SECRET_FIELDS, type SecretDeps } from './deps.ts';
import { presentSecret } from './present.ts';

export const OAUTH2_VIA_API =
  'oauth2 secrets are connected in the studio, not created with POST /secrets: connect an account with POST /secrets/oauth2/connections (the OAuth authorization-code flow), or an operator imports an existing grant with `mimic secrets import-oauth2`';

const CREATE_SCHEMAS = { bearer: CreateBearerSecret, api_key: CreateApiKeySecret, basic: CreateBasicSecret } as const;
const UPDATE_SCHEMAS = { bearer: UpdateBearerSecret, api_key: UpdateApiKeySecret, basic: UpdateBasicSecret, oauth2: UpdateOAuth2Secret } as const;
type ApiType = keyof typeof CREATE_SCHEMAS;

function apiTypeOf(body: Record<string, unknown>, fallback?: SecretType): SecretType {
  const type = body.type ?? fallback;
  if (type === 'oauth2') return 'oauth2';
  if (type === 'bearer' || type === 'api_key' || type === 'basic') return type;
  throw new ApiError('BadRequestError', 'Invalid request body: type must be one of bearer, api_key, basic', [
    { field: 'type', message: type === undefined ? 'is required' : 'must be one of bearer, api_key, basic (oauth2 is connected: POST /secrets/oauth2/connections)' },
  ]);
}

function checkHeaderName(name: unknown): void {
  if (typeof name === 'string' && (FORBIDDEN_HEADER_NAMES as readonly string[]).includes(name.toLowerCase())) {
    throw new ApiError('BadRequestError', `Invalid request body: header_name ${name} would break the outbound request`, [
      { field: 'header_name', message: `must not be one of ${FORBIDDEN_HEADER_NAMES.join(', ')}` },
    ]);
  }
}

/** The encrypted values a body supplies, by field name; null and absent mean "keep". */
function valuesOf(type: ApiType, body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of SECRET_FIELDS[type]) {
    const v = body[field];
    if (typeof v === 'string') out[field] = v;
  }
  return out;
}

export async function createSecret(deps: SecretDeps, userId: string, body: Record<string, unknown>): Promise<SecretView> {
  const type = apiTypeOf(body);
  if (type === 'oauth2') throw new ApiError('BadRequestError', OAUTH2_VIA_API, [{ field: 'type', message: 'oauth2 is connected in the studio' }]);
  validate(CREATE_SCHEMAS[type], body);
  checkHeaderName(body.header_name);
  const id = deps.newId('sec');
  const sealed = await deps.vault.seal(userId, id, valuesOf(type, body));
  const now = deps.clock.now();
  const row: SecretRow = {
    id, userId, provider: body.provider as string, type,
    headerName: type === 'api_key' ? ((body.header_name as string | undefined) ?? DEFAULT_API_KEY_HEADER) : null,
    tokenUrl: null, clientId: null, clientAuthMethod: null, expiresAt: null, status: 'active', version: 1,
    createdAt: now, updatedAt: now, lastUsedAt: null, refreshedAt: null, lockOwner: null, lockUntil: null,
  };
  await deps.secretStore.create(row, sealed, auditRecord(deps.newId, now, { userId, action: 'secret.created', outcome: 'success', secretId: id, detail: { type, provider: row.provider } }));
  return presentSecret(row);
}

/**
 * PUT /secrets/{id}: replaces the credential. Fields left out (or null) keep their stored
 * value; a change of `type` needs every field of the new type. The next tool call reads the
 * new values (nothing caches plaintext between calls).
 */
export async function updateSecret(deps: SecretDeps, userId: string, id: string, body: Record<string, unknown>): Promise<SecretView> {
  const current = await deps.secretStore.get(userId, id);
  if (!current) throw notFound('Secret');
  const type = apiTypeOf(body, current.type);
  if (type === 'oauth2' && current.type !== 'oauth2') throw new ApiError('BadRequestError', OAUTH2_VIA_API, [{ field: 'type', message: 'oauth2 is connected in the studio' }]);
  if (type !== 'oauth2' && current.type === 'oauth2') {
    throw new ApiError('BadRequestError', 'An oauth2 secret cannot be turned into another type; create a new secret instead', [{ field: 'type', message: 'must stay oauth2' }]);
  }
  validate(UPDATE_SCHEMAS[type], body);
  checkHeaderName(body.header_name);
  const typeChanged = type !== current.type;
  if (typeChanged) {
    validate(CREATE_SCHEMAS[type as ApiType], { provider: current.provider, ...body, type });
  }
  const values = type === 'oauth2' ? {} : valuesOf(type, body);
  const sealed = Object.keys(values).length ? await deps.vault.seal(userId, id, values) : [];
  const now = deps.clock.now();
  const headerName = type === 'api_key' ? ((body.header_name as string | undefined) ?? (typeChanged ? DEFAULT_API_KEY_HEADER : current.headerName)) : null;
  const provider = (body.provider as string | undefined) ?? current.provider;
  const changed = [...(body.provider !== undefined ? ['provider'] : []), ...(typeChanged ? ['type'] : []), ...Object.keys(values), ...(body.header_name !== undefined ? ['header_name'] : [])];
  const updated = await deps.secretStore.replace(
    userId, id, { provider, type, headerName, updatedAt: now }, { values: sealed, replaceAll: typeChanged },
    auditRecord(deps.newId, now, { userId, action: 'secret.updated', outcome: 'success', secretId: id, detail: { type, changed } }),
  );
  if (!updated) throw notFound('Secret');
  return presentSecret(updated);
}

/** DELETE /secrets/{id}: refused with 409 while a tool or an agent refers to it. Answers the secret as it was. */
export async function deleteSecret(deps: SecretDeps, userId: string, id: string): Promise<SecretView> {
  const outcome = await deps.secretStore.delete(userId, id, (row) =>
    auditRecord(deps.newId, deps.clock.now(), { userId, action: 'secret.deleted', outcome: 'success', secretId: id, detail: { type: row.type } }),
  );
  if (!outcome) throw notFound('Secret');
  if ('usedBy' in outcome) {
    const tools = outcome.usedBy;
    const agents = outcome.usedByAgents ?? [];
    const count = (ids: string[], what: string) => (ids.length === 20 ? `at least 20 ${what}s` : `${ids.length} ${what}(s)`);
    const by = [tools.length ? count(tools, 'tool') : '', agents.length ? count(agents, 'agent') : ''].filter(Boolean).join(' and ');
    throw new ApiError('ConflictError', `Secret ${id} is used by ${by}; change or delete them first`, {
      tool_ids: tools,
      ...(agents.length ? { agent_ids: agents } : {}),
    });
  }
  return presentSecret(outcome.deleted);
}

function presentUsage(u: SecretUsage): SecretUsageView {
  return {
    tools: u.tools,
    tools_total: u.toolsTotal,
    agents: u.agents.map((a) => ({ id: a.id, name: a.name, model: a.model, tool_ids: a.toolIds })),
    agents_total: u.agentsTotal,
  };
}

/** Secrets as GET answers them: each with `used_by`, read for the whole page at once. */
async function withUsage(deps: SecretDeps, userId: string, rows: SecretRow[]): Promise<SecretView[]> {
  const usage = rows.length ? await deps.secretStore.usage(userId, rows.map((r) => r.id), USAGE_LISTED) : new Map<string, SecretUsage>();
  return rows.map((row) => ({ ...presentSecret(row), used_by: presentUsage(usage.get(row.id)!) }));
}

export async function fetchSecret(deps: SecretDeps, userId: string, id: string): Promise<SecretView> {
  const row = await deps.secretStore.get(userId, id);
  if (!row) throw notFound('Secret');
  return (await withUsage(deps, userId, [row]))[0]!;
}

export async function pageSecrets(deps: SecretDeps, userId: string, limit: number, cursor: PageCursor | null): Promise<{ secrets: SecretView[]; token?: string }> {
  const page = toPage(await deps.secretStore.list(userId, limit + 1, cursor), limit, byCreation);
  return { secrets: await withUsage(deps, userId, page.items), ...(page.token ? { token: page.token } : {}) };
}
