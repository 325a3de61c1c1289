import { randomBytes } from 'node:crypto';
import { ApiError, notFound } from '../../errors.ts';
import type { Clock, IdFactory } from '../../clock.ts';
import { isoTime } from '../../clock.ts';
import { hashApiKey } from '../../platform/caller.ts';
import { validate } from '../../schemas/ajv.ts';
import type { ClientKeyRow, ClientKeyStore } from './store.ts';
import { CreateClientKey, UpdateClientKey } from './schemas.ts';

/** Active client keys one agent may have (the hosted service has such a limit too). */
export const MAX_CLIENT_KEYS_PER_AGENT = 20;

export interface ClientKeyDeps {
  store: ClientKeyStore;
  clock: Clock;
  newId: IdFactory;
  /** derived from the master key ('client-key-hash'): the key's stored form is its HMAC under it. */
  hashKey: Buffer;
}

/** 32 random bytes (256 bits), as API keys: with that much entropy a fast keyed hash is as safe as a slow one. */
export const generateClientKey = (): string => `mimic_ck_${randomBytes(32).toString('base64url')}`;

const present = (row: ClientKeyRow) => ({
  id: row.id, prefix: row.prefix, allowed_domains: row.origins, ...(row.name !== null ? { name: row.name } : {}), resource_id: row.agentId, created_at: isoTime(row.createdAt),
});

/**
 * An allowed origin as a browser sends it in `Origin`: http(s), host, a port only when not the
 * default, no path, query or trailing slash (one trailing `/` is forgiven). Anything else is
 * refused by name: a key that never matches would look like a bug in the page.
 */
function origins(values: string[]): string[] {
  return values.map((value, i) => {
    const trimmed = value.endsWith('/') ? value.slice(0, -1) : value;
    let url: URL | undefined;
    try {
      url = new URL(trimmed);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== trimmed) {
      throw new ApiError('BadRequestError', `allowed_domains[${i}] must be an origin such as https://example.com (scheme and host, no path)`, [
        { field: `allowed_domains/${i}`, message: 'must be an origin: scheme://host[:port]' },
      ]);
    }
    return url.origin;
  });
}

export async function createClientKey(deps: ClientKeyDeps, userId: string, agentId: string, raw: unknown) {
  const body = validate(CreateClientKey, raw);
  const key = generateClientKey();
  const row = {
    id: deps.newId('ck'), userId, agentId, prefix: key.slice(0, 14), name: body.name ?? null, origins: [...new Set(origins(body.allowed_domains))], createdAt: deps.clock.now(),
  };
  const result = await deps.store.create({ ...row, hash: hashApiKey(deps.hashKey, key) }, MAX_CLIENT_KEYS_PER_AGENT);
  if (result === 'no_agent') throw notFound('Agent');
  if (result === 'full') throw new ApiError('BadRequestError', `Maximum number of client keys per agent reached (${MAX_CLIENT_KEYS_PER_AGENT}): revoke one first`);
  return { client_key: key, ...present(row) };
}

export async function listClientKeys(deps: ClientKeyDeps, userId: string, agentId: string, agentExists: () => Promise<boolean>) {
  const rows = await deps.store.list(userId, agentId);
  if (rows.length === 0 && !(await agentExists())) throw notFound('Agent');
  return rows.map(present);
}

export async function updateClientKey(deps: ClientKeyDeps, userId: string, agentId: string, id: string, raw: unknown): Promise<void> {
  const body = validate(UpdateClientKey, raw);
  const change = { ...(body.allowed_domains ? { origins: [...new Set(origins(body.allowed_domains))] } : {}), ...(body.name !== undefined ? { name: body.name } : {}) };
  if (!(await deps.store.update(userId, agentId, id, change))) throw notFound('Agent or client key');
}

/** Revoked at once: the key's next request is refused (401) in every process within 1 ms. */
export async function revokeClientKey(deps: ClientKeyDeps, userId: string, agentId: string, id: string): Promise<void> {
  if (!(await deps.store.revoke(userId, agentId, id, deps.clock.now()))) throw notFound('Agent or client key');
}
