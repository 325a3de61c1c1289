import type { Store } from '../db/client.ts';
import type { SecretRow } from '../db/schema.ts';
import type { PageCursor } from '../pagination.ts';
import type { SealedValue } from '../vault/index.ts';
import { auditWriter, type AuditRecord } from '../audit/contract.ts';

/** What a PUT /secrets/{id} may change besides the sealed values. */
export interface CredentialPatch {
  provider: string;
  type: SecretRow['type'];
  headerName: string | null;
  updatedAt: number;
}

/** An oauth2 grant imported over an existing oauth2 secret (status back to active). */
export interface GrantPatch {
  provider: string;
  tokenUrl: string;
  clientId: string;
  /** Absent or null: client_secret_post. */
  clientAuthMethod?: SecretRow['clientAuthMethod'];
  expiresAt: number;
  updatedAt: number;
}

export interface SealedWrite {
  values: SealedValue[];
  /** Removes the fields not in `values` (a change of type, a new grant). */
  replaceAll: boolean;
}

/** `usedBy`: the tools that refer to the secret; `usedByAgents`: the agents whose model key it is. */
export type DeleteOutcome = { deleted: SecretRow } | { usedBy: string[]; usedByAgents?: string[] } | undefined;

/** What refers to one secret (the tools and agents lists cut at `max`, the totals whole). */
export interface SecretUsage {
  tools: { id: string; name: string }[];
  toolsTotal: number;
  agents: { id: string; name: string; model: boolean; toolIds: string[] }[];
  agentsTotal: number;
}

/**
 * The rows of secrets and their sealed values. Every change bumps `version` in the same
 * conditional UPDATE that makes it (readers detect a stale copy by it), and commits with its
 * sealed values and its audit row, or not at all.
 */
export interface SecretStore {
  get(userId: string, id: string): Promise<SecretRow | undefined>;
  /** By id alone: for the tool runtime and the oauth2 refresher, which got the id from a row of that user. */
  getById(id: string): Promise<SecretRow | undefined>;
  sealedValues(secretId: string): Promise<SealedValue[]>;
  /** Newest first, `limit` rows strictly after `cursor` in (created_at desc, id desc) order. */
  list(userId: string, limit: number, cursor: PageCursor | null): Promise<SecretRow[]>;
  userExists(userId: string): Promise<boolean>;
  create(row: SecretRow, sealed: SealedValue[], audit: AuditRecord): Promise<void>;
  /** Undefined when the secret (of that user) is gone. */
  replace(userId: string, id: string, patch: CredentialPatch, sealed: SealedWrite, audit: AuditRecord): Promise<SecretRow | undefined>;
  /** Undefined when the secret is gone or is not oauth2. */
  replaceGrant(userId: string, id: string, patch: GrantPatch, sealed: SealedValue[], audit: AuditRecord): Promise<SecretRow | undefined>;
  /** Refused (with up to `max` tool ids) while a tool refers to the secret. */
  delete(userId: string, id: string, audit: (row: SecretRow) => AuditRecord, max?: number): Promise<DeleteOutcome>;
  /**
   * Which tools refer to each of these secrets of the user, and which agents use them (the
   * model's key, or through one of those tools), newest first, at most `max` of each listed.
   */
  usage(userId: string, secretIds: readonly string[], max: number): Promise<Map<string, SecretUsage>>;
  /**
   * A refreshed oauth2 token pair; false when the secret is gone, or, given `seenVersion`, when
   * it changed since that version was read (a grant imported meanwhile is not overwritten).
   */
  saveTokens(secretId: string, expiresAt: number | null, refreshedAt: number, sealed: SealedValue[], seenVersion?: number): Promise<boolean>;
  /** Given `seenVersion`, only while the secret is still at that version (a new grant imported meanwhile stays active); false when nothing changed. */
  markNeedsReauthorization(secretId: string, now: number, seenVersion?: number): Promise<boolean>;
}

/** A `secrets` row as SQL returns it (both dialects). */
export type RawSecretRow = {
  id: string;
  user_id: string;
  provider: string;
  type: SecretRow['type'];
  header_name: string | null;
  token_url: string | null;
  client_id: string | null;
  client_auth_method: SecretRow['clientAuthMethod'];
  expires_at: number | null;
  status: SecretRow['status'];
  version: number;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
  refreshed_at: number | null;
  lock_owner: string | null;
  lock_until: number | null;
};

export const toRow = (r: RawSecretRow): SecretRow => ({
  id: r.id, userId: r.user_id, provider: r.provider, type: r.type, headerName: r.header_name, tokenUrl: r.token_url, clientId: r.client_id, clientAuthMethod: r.client_auth_method,
  expiresAt: r.expires_at, status: r.status, version: r.version, createdAt: r.created_at, updatedAt: r.updated_at, lastUsedAt: r.last_used_at,
  refreshedAt: r.refreshed_at, lockOwner: r.lock_owner, lockUntil: r.lock_until,
});
const maybeRow = (r: RawSecretRow | undefined): SecretRow | undefined => (r ? toRow(r) : undefined);

/** One row per tool using a secret (newest first). */
export interface ToolUsingRow { secret_id: string; id: string; name: string }
/** One row per agent using a secret: as its model's key (`tool_id` null) or through one of its tools (newest first). */
export interface AgentUsingRow { secret_id: string; id: string; name: string | null; tool_id: string | null }

/** The usage of each secret from the rows of the tools and agents that use them, `max` of each listed, totals whole. */
export function usageOf(secretIds: readonly string[], tools: readonly ToolUsingRow[], agents: readonly AgentUsingRow[], max: number): Map<string, SecretUsage> {
  const out = new Map<string, SecretUsage>(secretIds.map((id) => [id, { tools: [], toolsTotal: 0, agents: [], agentsTotal: 0 }]));
  for (const t of tools) {
    const u = out.get(t.secret_id)!;
    if (u.toolsTotal++ < max) u.tools.push({ id: t.id, name: t.name });
  }
  const seen = new Map<string, { id: string; name: string; model: boolean; toolIds: string[] }>();
  for (const a of agents) {
    const u = out.get(a.secret_id)!;
    const key = `${a.secret_id} ${a.id}`;
    let agent = seen.get(key);
    if (!agent) {
      agent = { id: a.id, name: a.name ?? '', model: false, toolIds: [] };
      seen.set(key, agent);
      if (u.agentsTotal++ < max) u.agents.push(agent);
    }
    if (a.tool_id === null) agent.model = true;
    else agent.toolIds.push(a.tool_id);
  }
  return out;
}

export function createSqliteSecretStore(handle: Store): SecretStore {
  const { sqlite } = handle;
  const audit = auditWriter(sqlite);
  const byUser = sqlite.prepare<[string, string], RawSecretRow>('SELECT * FROM secrets WHERE id = ? AND user_id = ?');
  const byId = sqlite.prepare<[string], RawSecretRow>('SELECT * FROM secrets WHERE id = ?');
  const sealedOf = sqlite.prepare<[string], SealedValue>(
    'SELECT field, kek_id AS kekId, wrapped_key AS wrappedKey, ciphertext FROM secret_fields WHERE secret_id = ?',
  );
  const firstPage = sqlite.prepare<[string, number], RawSecretRow>('SELECT * FROM secrets WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?');
  const nextPage = sqlite.prepare<[string, number, number, string, number], RawSecretRow>(
    'SELECT * FROM secrets WHERE user_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?',
  );
  const user = sqlite.prepare<[string], { id: string }>('SELECT id FROM users WHERE id = ?');
  const insert = sqlite.prepare(
    `INSERT INTO secrets (id, user_id, provider, type, header_name, token_url, client_id, client_auth_method, expires_at, status, version, created_at, updated_at, last_used_at, refreshed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const updateCredential = sqlite.prepare<[string, string, string | null, number, string, string], RawSecretRow>(
    `UPDATE secrets SET provider = ?, type = ?, header_name = ?, updated_at = ?, version = version + 1 WHERE id = ? AND user_id = ? RETURNING *`,
  );
  const updateGrant = sqlite.prepare<[string, string, string, SecretRow['clientAuthMethod'], number, number, string, string], RawSecretRow>(
    `UPDATE secrets SET provider = ?, token_url = ?, client_id = ?, client_auth_method = ?, expires_at = ?, updated_at = ?, status = 'active', version = version + 1
     WHERE id = ? AND user_id = ? AND type = 'oauth2' RETURNING *`,
  );
  const updateTokens = sqlite.prepare<[number | null, number, string, number | null, number | null]>(
    `UPDATE secrets SET expires_at = ?, refreshed_at = ?, status = 'active', version = version + 1 WHERE id = ? AND (? IS NULL OR version = ?)`,
  );
  const needsReauthorization = sqlite.prepare<[number, string, number | null, number | null]>(
    `UPDATE secrets SET status = 'needs_reauthorization', updated_at = ? WHERE id = ? AND (? IS NULL OR version = ?)`,
  );
  const referencing = sqlite.prepare<[string, number], { id: string }>('SELECT id FROM tools WHERE secret_id = ? LIMIT ?');
  const referencingAgents = sqlite.prepare<[string, number], { id: string }>('SELECT id FROM agents WHERE secret_id = ? LIMIT ?');
  // Conditional: a tool or an agent created meanwhile (by another writer) keeps its secret.
  const remove = sqlite.prepare<[string, string], RawSecretRow>(
    `DELETE FROM secrets WHERE id = ? AND user_id = ?
       AND NOT EXISTS (SELECT 1 FROM tools WHERE tools.secret_id = secrets.id)
       AND NOT EXISTS (SELECT 1 FROM agents WHERE agents.secret_id = secrets.id) RETURNING *`,
  );
  // Usage, for a page of secret ids at once (a JSON array parameter).
  const toolsUsing = sqlite.prepare<[string, string], ToolUsingRow>(
    `SELECT secret_id, id, name FROM tools WHERE user_id = ? AND secret_id IN (SELECT value FROM json_each(?))
     ORDER BY created_at DESC, id DESC`,
  );
  const agentsUsing = sqlite.prepare<[string, string, string, string], AgentUsingRow>(
    `SELECT a.secret_id AS secret_id, a.id AS id, json_extract(a.body, '$.preview_name') AS name, NULL AS tool_id, a.created_at AS created_at
       FROM agents a WHERE a.user_id = ? AND a.secret_id IN (SELECT value FROM json_each(?))
     UNION ALL
     SELECT t.secret_id, a.id, json_extract(a.body, '$.preview_name'), t.id, a.created_at
       FROM agent_tools at JOIN tools t ON t.id = at.tool_id JOIN agents a ON a.id = at.agent_id
      WHERE a.user_id = ? AND t.secret_id IN (SELECT value FROM json_each(?))
     ORDER BY created_at DESC, id DESC`,
  );
  const removeFields = sqlite.prepare<[string]>('DELETE FROM secret_fields WHERE secret_id = ?');
  const upsertField = sqlite.prepare<[string, string, string, string, string]>(
    `INSERT INTO secret_fields (secret_id, field, kek_id, wrapped_key, ciphertext) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (secret_id, field) DO UPDATE SET kek_id = excluded.kek_id, wrapped_key = excluded.wrapped_key, ciphertext = excluded.ciphertext`,
  );

  const writeSealed = (secretId: string, values: SealedValue[], replaceAll: boolean) => {
    if (replaceAll) removeFields.run(secretId);
    for (const v of values) upsertField.run(secretId, v.field, v.kekId, v.wrappedKey, v.ciphertext);
  };

  const create = sqlite.transaction((row: SecretRow, sealed: SealedValue[], record: AuditRecord) => {
    insert.run(
      row.id, row.userId, row.provider, row.type, row.headerName, row.tokenUrl, row.clientId, row.clientAuthMethod, row.expiresAt, row.status, row.version,
      row.createdAt, row.updatedAt, row.lastUsedAt, row.refreshedAt,
    );
    writeSealed(row.id, sealed, false);
    audit(record);
  });
  const replace = sqlite.transaction((userId: string, id: string, p: CredentialPatch, sealed: SealedWrite, record: AuditRecord) => {
    const updated = updateCredential.get(p.provider, p.type, p.headerName, p.updatedAt, id, userId);
    if (!updated) return undefined;
    writeSealed(id, sealed.values, sealed.replaceAll);
    audit(record);
    return toRow(updated);
  });
  const replaceGrant = sqlite.transaction((userId: string, id: string, p: GrantPatch, sealed: SealedValue[], record: AuditRecord) => {
    const updated = updateGrant.get(p.provider, p.tokenUrl, p.clientId, p.clientAuthMethod ?? null, p.expiresAt, p.updatedAt, id, userId);
    if (!updated) return undefined;
    writeSealed(id, sealed, true);
    audit(record);
    return toRow(updated);
  });
  const del = sqlite.transaction((userId: string, id: string, record: (row: SecretRow) => AuditRecord, max: number): DeleteOutcome => {
    const removed = remove.get(id, userId);
    if (removed) {
      const deleted = toRow(removed);
      audit(record(deleted));
      return { deleted };
    }
    if (!byUser.get(id, userId)) return undefined;
    const agents = referencingAgents.all(id, max).map((r) => r.id);
    return { usedBy: referencing.all(id, max).map((r) => r.id), ...(agents.length ? { usedByAgents: agents } : {}) };
  });
  const saveTokens = sqlite.transaction((secretId: string, expiresAt: number | null, refreshedAt: number, sealed: SealedValue[], seen: number | null) => {
    if (updateTokens.run(expiresAt, refreshedAt, secretId, seen, seen).changes === 0) return false;
    writeSealed(secretId, sealed, false);
    return true;
  });

  const usage = sqlite.transaction((userId: string, secretIds: readonly string[], max: number) => {
    const ids = JSON.stringify(secretIds);
    return usageOf(secretIds, toolsUsing.all(userId, ids), agentsUsing.all(userId, ids, userId, ids), max);
  });

  return {
    get: async (userId, id) => maybeRow(byUser.get(id, userId)),
    getById: async (id) => maybeRow(byId.get(id)),
    sealedValues: async (secretId) => sealedOf.all(secretId),
    list: async (userId, limit, cursor) =>
      (cursor ? nextPage.all(userId, cursor.createdAt, cursor.createdAt, cursor.id, limit) : firstPage.all(userId, limit)).map(toRow),
    userExists: async (userId) => user.get(userId) !== undefined,
    create: async (row, sealed, record) => create(row, sealed, record),
    replace: async (userId, id, patch, sealed, record) => replace(userId, id, patch, sealed, record),
    replaceGrant: async (userId, id, patch, sealed, record) => replaceGrant(userId, id, patch, sealed, record),
    delete: async (userId, id, record, max = 20) => del(userId, id, record, max),
    usage: async (userId, secretIds, max) => usage(userId, secretIds, max),
    saveTokens: async (secretId, expiresAt, refreshedAt, sealed, seen) => saveTokens(secretId, expiresAt, refreshedAt, sealed, seen ?? null),
    markNeedsReauthorization: async (secretId, now, seen) => needsReauthorization.run(now, secretId, seen ?? null, seen ?? null).changes === 1,
  };
}
