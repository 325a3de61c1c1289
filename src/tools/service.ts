import { ApiError, notFound } from '../errors.ts';
import type { ToolRow } from '../db/schema.ts';
import { byCreation, toPage, type PageCursor } from '../pagination.ts';
import { validate } from '../schemas/ajv.ts';
import { ToolBody, type ToolBodyInput, type ToolView } from './schemas.ts';
import { auditRecord } from '../audit/contract.ts';
import type { SecretDeps } from '../secrets/contract.ts';
import { checkParameters } from './exec/parameters.ts';
import { placeholdersOf } from './exec/url-template.ts';
import { presentTool } from './present.ts';
import type { ToolStore, ToolValues } from './store.ts';

export type ToolDeps = SecretDeps & { toolStore: ToolStore };

/**
 * Everything about a tool body that a JSON Schema alone cannot say: the parameters are a
 * compilable schema of an object, URL placeholders name its properties and sit in the path or
 * query only, credentials go over https only, and client tools carry no auth.
 */
function checkTool(body: ToolBodyInput): void {
  const params = checkParameters(body.schema.parameters);
  if (!params.ok) {
    const first = params.details[0];
    throw new ApiError('BadRequestError', `Invalid request body: ${first ? `${first.field} ${first.message}` : 'schema.parameters is not a valid JSON Schema'}`, params.details);
  }
  if (body.config.type === 'client') {
    if (body.auth) throw new ApiError('BadRequestError', 'Invalid request body: a client tool runs in the browser and may not have auth', [{ field: 'auth', message: 'is not allowed for client tools' }]);
    return;
  }
  const found = placeholdersOf(body.config.url);
  if ('error' in found) throw new ApiError('BadRequestError', `Invalid request body: config.url ${found.error}`, [{ field: 'config.url', message: found.error }]);
  const properties = (body.schema.parameters as { properties?: Record<string, unknown> }).properties ?? {};
  for (const name of found.names) {
    if (!Object.hasOwn(properties, name)) {
      throw new ApiError('BadRequestError', `Invalid request body: config.url placeholder {${name}} is not a property of schema.parameters`, [
        { field: 'config.url', message: `placeholder {${name}} must be a property of schema.parameters` },
      ]);
    }
  }
  if (body.auth && !body.config.url.toLowerCase().startsWith('https://')) {
    throw new ApiError('BadRequestError', 'Invalid request body: a tool with auth must use an https URL (credentials never travel in clear text)', [
      { field: 'config.url', message: 'must be https when auth is set' },
    ]);
  }
}

function rowValues(body: ToolBodyInput): ToolValues {
  const config = body.config.type === 'server' ? { ...body.config, method: body.config.method.toUpperCase() } : body.config;
  return {
    name: body.name,
    description: body.description,
    provider: body.provider,
    schema: JSON.stringify(body.schema),
    config: JSON.stringify(config),
    secretId: body.auth?.secret_id ?? null,
  };
}

function secretNotFound(secretId: string | null): ApiError {
  return new ApiError('NotFoundError', 'Secret not found', [{ field: 'auth.secret_id', message: `no secret ${secretId}` }]);
}

/**
 * POST /tools/validate: every check of POST /tools (the body's schema, the parameters as a JSON
 * Schema the service compiles, the URL's placeholders, https with auth, the secret being the
 * caller's), and nothing written. The same errors, word for word, so an editor can show them
 * while a person types.
 */
export async function validateTool(deps: ToolDeps, userId: string, raw: unknown): Promise<{ valid: true }> {
  const body = validate(ToolBody, raw);
  checkTool(body);
  const secretId = body.auth?.secret_id;
  if (secretId !== undefined) {
    const secret = await deps.secretStore.getById(secretId);
    if (!secret || secret.userId !== userId) throw secretNotFound(secretId);
  }
  return { valid: true };
}

export async function createTool(deps: ToolDeps, userId: string, raw: unknown): Promise<ToolView> {
  const body = validate(ToolBody, raw);
  checkTool(body);
  const now = deps.clock.now();
  const row: ToolRow = { id: deps.newId('tool'), userId, ...rowValues(body), createdAt: now, updatedAt: now };
  const created = await deps.toolStore.create(
    row,
    auditRecord(deps.newId, now, { userId, action: 'tool.created', outcome: 'success', toolId: row.id, secretId: row.secretId }),
  );
  if (created === 'secret_missing') throw secretNotFound(row.secretId);
  return presentTool(created);
}

/** PUT /tools/{id}: a full replace; a new auth.secret_id swaps the secret the next call uses. */
export async function replaceTool(deps: ToolDeps, userId: string, id: string, raw: unknown): Promise<ToolView> {
  if (!(await deps.toolStore.get(userId, id))) throw notFound('Tool');
  const body = validate(ToolBody, raw);
  checkTool(body);
  const now = deps.clock.now();
  const values = rowValues(body);
  const row = await deps.toolStore.replace(userId, id, values, now, (current) =>
    auditRecord(deps.newId, now, {
      userId, action: 'tool.updated', outcome: 'success', toolId: id, secretId: values.secretId,
      ...(values.secretId !== current.secretId ? { detail: { changed: ['auth.secret_id'] } } : {}),
    }),
  );
  if (row === 'not_found') throw notFound('Tool');
  if (row === 'secret_missing') throw secretNotFound(values.secretId);
  return presentTool(row);
}

export async function deleteTool(deps: ToolDeps, userId: string, id: string): Promise<ToolView> {
  const row = await deps.toolStore.delete(userId, id, (deleted) =>
    auditRecord(deps.newId, deps.clock.now(), { userId, action: 'tool.deleted', outcome: 'success', toolId: id, secretId: deleted.secretId }),
  );
  if (!row) throw notFound('Tool');
  return presentTool(row);
}

export async function fetchTool(deps: ToolDeps, userId: string, id: string): Promise<ToolView> {
  const row = await deps.toolStore.get(userId, id);
  if (!row) throw notFound('Tool');
  return presentTool(row);
}

export async function pageTools(deps: ToolDeps, userId: string, limit: number, cursor: PageCursor | null) {
  const page = toPage(await deps.toolStore.list(userId, limit + 1, cursor), limit, byCreation);
  return { tools: page.items.map(presentTool), ...(page.token ? { token: page.token } : {}) };
}
