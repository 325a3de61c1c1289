import { eq } from 'drizzle-orm';
import { ApiError, notFound } from '../errors.ts';
import { tools, type ToolRow } from '../db/schema.ts';
import { byCreation, toPage, type PageCursor } from '../pagination.ts';
import { validate } from '../schemas/ajv.ts';
import { ToolBody, type ToolBodyInput, type ToolView } from '../schemas/tools.ts';
import { recordAudit } from '../audit/store.ts';
import type { SecretDeps } from '../secrets/deps.ts';
import { getSecret } from '../secrets/store.ts';
import { checkParameters } from './exec/parameters.ts';
import { placeholdersOf } from './exec/url-template.ts';
import { presentTool } from './present.ts';
import { getTool, listTools } from './store.ts';

export type ToolDeps = SecretDeps;

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

function rowValues(deps: ToolDeps, userId: string, body: ToolBodyInput) {
  if (body.auth && !getSecret(deps.store, userId, body.auth.secret_id)) {
    throw new ApiError('NotFoundError', 'Secret not found', [{ field: 'auth.secret_id', message: `no secret ${body.auth.secret_id}` }]);
  }
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

export function createTool(deps: ToolDeps, userId: string, raw: unknown): ToolView {
  const body = validate(ToolBody, raw);
  checkTool(body);
  const now = deps.clock.now();
  const row = deps.store.sqlite.transaction((): ToolRow => {
    const created: ToolRow = { id: deps.newId('tool'), userId, ...rowValues(deps, userId, body), createdAt: now, updatedAt: now };
    deps.store.db.insert(tools).values(created).run();
    recordAudit(deps.store, deps.newId, now, { userId, action: 'tool.created', outcome: 'success', toolId: created.id, secretId: created.secretId });
    return created;
  })();
  return presentTool(row);
}

/** PUT /tools/{id}: a full replace; a new auth.secret_id swaps the secret the next call uses. */
export function replaceTool(deps: ToolDeps, userId: string, id: string, raw: unknown): ToolView {
  if (!getTool(deps.store, userId, id)) throw notFound('Tool');
  const body = validate(ToolBody, raw);
  checkTool(body);
  const now = deps.clock.now();
  const row = deps.store.sqlite.transaction((): ToolRow => {
    const current = getTool(deps.store, userId, id);
    if (!current) throw notFound('Tool');
    const values = rowValues(deps, userId, body);
    deps.store.db.update(tools).set({ ...values, updatedAt: now }).where(eq(tools.id, id)).run();
    recordAudit(deps.store, deps.newId, now, {
      userId, action: 'tool.updated', outcome: 'success', toolId: id, secretId: values.secretId,
      ...(values.secretId !== current.secretId ? { detail: { changed: ['auth.secret_id'] } } : {}),
    });
    return { ...current, ...values, updatedAt: now };
  })();
  return presentTool(row);
}

export function deleteTool(deps: ToolDeps, userId: string, id: string): ToolView {
  return deps.store.sqlite.transaction(() => {
    const row = getTool(deps.store, userId, id);
    if (!row) throw notFound('Tool');
    deps.store.db.delete(tools).where(eq(tools.id, id)).run();
    recordAudit(deps.store, deps.newId, deps.clock.now(), { userId, action: 'tool.deleted', outcome: 'success', toolId: id, secretId: row.secretId });
    return presentTool(row);
  })();
}

export function fetchTool(deps: ToolDeps, userId: string, id: string): ToolView {
  const row = getTool(deps.store, userId, id);
  if (!row) throw notFound('Tool');
  return presentTool(row);
}

export function pageTools(deps: ToolDeps, userId: string, limit: number, cursor: PageCursor | null) {
  const page = toPage(listTools(deps.store, userId, limit + 1, cursor), limit, byCreation);
  return { tools: page.items.map(presentTool), ...(page.token ? { token: page.token } : {}) };
}
