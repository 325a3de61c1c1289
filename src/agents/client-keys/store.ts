import type { Store } from '../../db/client.ts';
import type { ClientKeyOwner, ClientKeyOwners } from '../../platform/caller.ts';
import { watchCommits } from '../../db/commit-watch.ts';

/** A client key as listed: never its hash. */
export interface ClientKeyRow {
  id: string;
  userId: string;
  agentId: string;
  prefix: string;
  name: string | null;
  origins: string[];
  createdAt: number;
}

export interface NewClientKey extends ClientKeyRow {
  hash: string;
}

export interface ClientKeyStore extends ClientKeyOwners {
  /** Inserts unless the agent is not the user's or already has `max` active keys. */
  create(key: NewClientKey, max: number): Promise<'created' | 'no_agent' | 'full'>;
  /** The agent's active keys, newest first (none when the agent is not the user's). */
  list(userId: string, agentId: string): Promise<ClientKeyRow[]>;
  /** Changes the origins and (when given) the name of an active key; false when there is none. */
  update(userId: string, agentId: string, id: string, change: { origins?: string[]; name?: string | null }): Promise<boolean>;
  /** Revokes an active key; false when there is none. */
  revoke(userId: string, agentId: string, id: string, now: number): Promise<boolean>;
}

export type Raw = { id: string; user_id: string; agent_id: string; prefix: string; name: string | null; allowed_origins: string; created_at: number };
export const toRow = (r: Raw): ClientKeyRow => ({
  id: r.id, userId: r.user_id, agentId: r.agent_id, prefix: r.prefix, name: r.name, origins: JSON.parse(r.allowed_origins) as string[], createdAt: r.created_at,
});

/**
 * Client keys in SQLite. `clientKeysVersion` moves as the users store's `keysVersion` does
 * (src/db/commit-watch.ts: another connection's commit, seen at most once per
 * COMMITS_RECHECK_MS, and this store's own writes at once), and also at once when this
 * connection wrote anything else (`total_changes()`): deleting an agent deletes its keys by
 * a cascade this store does not see, and a verifier must not remember them past it.
 */
export function createSqliteClientKeyStore({ sqlite }: Store): ClientKeyStore {
  const insert = sqlite.prepare(
    `INSERT INTO client_keys (id, user_id, agent_id, hash, prefix, name, allowed_origins, created_at)
     SELECT ?, user_id, id, ?, ?, ?, ?, ? FROM agents WHERE id = ? AND user_id = ?`,
  );
  const countActive = sqlite.prepare<[string], number>('SELECT count(*) FROM client_keys WHERE agent_id = ? AND revoked_at IS NULL').pluck();
  const agentOwned = sqlite.prepare<[string, string], number>('SELECT 1 FROM agents WHERE id = ? AND user_id = ?').pluck();
  const selectList = sqlite.prepare<[string, string], Raw>(
    `SELECT id, user_id, agent_id, prefix, name, allowed_origins, created_at FROM client_keys
     WHERE agent_id = ? AND user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
  );
  const updateOrigins = sqlite.prepare<[string | null, string, string, string]>(
    'UPDATE client_keys SET allowed_origins = coalesce(?, allowed_origins) WHERE id = ? AND agent_id = ? AND user_id = ? AND revoked_at IS NULL',
  );
  const updateName = sqlite.prepare<[string | null, string, string, string]>(
    'UPDATE client_keys SET name = ? WHERE id = ? AND agent_id = ? AND user_id = ? AND revoked_at IS NULL',
  );
  const revokeKey = sqlite.prepare<[number, string, string, string]>(
    'UPDATE client_keys SET revoked_at = ? WHERE id = ? AND agent_id = ? AND user_id = ? AND revoked_at IS NULL',
  );
  const selectOwner = sqlite.prepare<[string], { id: string; agent_id: string; user_id: string; allowed_origins: string; name: string | null; permissions: string }>(
    `SELECT k.id, k.agent_id, k.user_id, k.allowed_origins, u.name, u.permissions
     FROM client_keys k JOIN agents a ON a.id = k.agent_id AND a.user_id = k.user_id JOIN users u ON u.id = k.user_id
     WHERE k.hash = ? AND k.revoked_at IS NULL`,
  );
  const commits = watchCommits(sqlite);
  const totalChanges = sqlite.prepare<[], number>('SELECT total_changes()').pluck();
  let seenChanges = -1;

  const create = sqlite.transaction((k: NewClientKey, max: number): 'created' | 'no_agent' | 'full' => {
    if (!agentOwned.get(k.agentId, k.userId)) return 'no_agent';
    if (countActive.get(k.agentId)! >= max) return 'full';
    insert.run(k.id, k.hash, k.prefix, k.name, JSON.stringify(k.origins), k.createdAt, k.agentId, k.userId);
    return 'created';
  });
  const update = sqlite.transaction((userId: string, agentId: string, id: string, change: { origins?: string[]; name?: string | null }) => {
    const found = updateOrigins.run(change.origins ? JSON.stringify(change.origins) : null, id, agentId, userId).changes > 0;
    if (found && change.name !== undefined) updateName.run(change.name, id, agentId, userId);
    return found;
  });

  return {
    async create(key, max) {
      const result = create(key, max);
      commits.changed();
      return result;
    },
    async list(userId, agentId) {
      return selectList.all(agentId, userId).map(toRow);
    },
    async update(userId, agentId, id, change) {
      const found = update(userId, agentId, id, change);
      commits.changed();
      return found;
    },
    async revoke(userId, agentId, id, now) {
      const found = revokeKey.run(now, id, agentId, userId).changes > 0;
      commits.changed();
      return found;
    },
    async ownerOfClientKey(hash): Promise<ClientKeyOwner | undefined> {
      const row = selectOwner.get(hash);
      return row && {
        clientKeyId: row.id, agentId: row.agent_id, userId: row.user_id, name: row.name,
        permissions: JSON.parse(row.permissions) as string[], origins: JSON.parse(row.allowed_origins) as string[],
      };
    },
    async clientKeysVersion() {
      const changes = totalChanges.get()!;
      if (changes !== seenChanges) {
        seenChanges = changes;
        commits.changed();
      }
      return commits.version();
    },
  };
}
