import type { Store } from '../db/client.ts';
import type { PageCursor } from '../pagination.ts';

/** An agent as stored: `body` and `voice` are JSON (src/agents/service.ts writes and reads them). */
export interface AgentRow {
  id: string;
  userId: string;
  body: string;
  secretId: string | null;
  /** The ids of the tools its model may call, in order. */
  toolIds: string[];
  voice: string | null;
  version: number;
  createdAt: number;
  modifiedAt: number;
}

/** What a create or an update writes. */
export type AgentValues = Pick<AgentRow, 'body' | 'secretId' | 'toolIds' | 'voice'>;

/**
 * Why a write was refused: the secret is not one of the user's, or the tool at this index of
 * `toolIds` is not (checked in the same transaction as the write).
 */
export type AgentRefusal = { refused: 'secret' } | { refused: 'tool'; index: number };

/** `conflict`: the agent changed since `version` was read. */
export type AgentUpdate = AgentRow | AgentRefusal | 'not_found' | 'conflict';

export interface AgentStore {
  get(userId: string, id: string): Promise<AgentRow | undefined>;
  /** Newest first, `limit` rows strictly after `cursor` in (created_at desc, id desc) order. */
  list(userId: string, limit: number, cursor: PageCursor | null): Promise<AgentRow[]>;
  create(row: AgentRow): Promise<AgentRow | AgentRefusal>;
  /** Applies only over `version` (what the caller read); bumps it. */
  update(userId: string, id: string, version: number, values: AgentValues, modifiedAt: number): Promise<AgentUpdate>;
  delete(userId: string, id: string): Promise<AgentRow | undefined>;
}

/** A row of `agents` as both dialects read it. */
export type RawAgentRow = {
  id: string;
  user_id: string;
  body: string;
  secret_id: string | null;
  voice: string | null;
  version: number;
  created_at: number;
  modified_at: number;
};

export function createSqliteAgentStore(handle: Store): AgentStore {
  const { sqlite } = handle;
  const byUser = sqlite.prepare<[string, string], RawAgentRow>('SELECT * FROM agents WHERE id = ? AND user_id = ?');
  const firstPage = sqlite.prepare<[string, number], RawAgentRow>('SELECT * FROM agents WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?');
  const nextPage = sqlite.prepare<[string, number, number, string, number], RawAgentRow>(
    'SELECT * FROM agents WHERE user_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?',
  );
  const toolsOf = sqlite.prepare<[string], { tool_id: string }>('SELECT tool_id FROM agent_tools WHERE agent_id = ? ORDER BY position');
  const ownedSecret = sqlite.prepare<[string, string], { id: string }>('SELECT id FROM secrets WHERE id = ? AND user_id = ?');
  const ownedTool = sqlite.prepare<[string, string], { id: string }>('SELECT id FROM tools WHERE id = ? AND user_id = ?');
  const insert = sqlite.prepare<[string, string, string, string | null, string | null, number, number, number]>(
    'INSERT INTO agents (id, user_id, body, secret_id, voice, version, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const update = sqlite.prepare<[string, string | null, string | null, number, string, string, number], RawAgentRow>(
    'UPDATE agents SET body = ?, secret_id = ?, voice = ?, modified_at = ?, version = version + 1 WHERE id = ? AND user_id = ? AND version = ? RETURNING *',
  );
  const insertTool = sqlite.prepare<[string, string, number]>('INSERT INTO agent_tools (agent_id, tool_id, position) VALUES (?, ?, ?)');
  const clearTools = sqlite.prepare<[string]>('DELETE FROM agent_tools WHERE agent_id = ?');
  const remove = sqlite.prepare<[string, string], RawAgentRow>('DELETE FROM agents WHERE id = ? AND user_id = ? RETURNING *');

  const toRow = (r: RawAgentRow, toolIds = toolsOf.all(r.id).map((t) => t.tool_id)): AgentRow => ({
    id: r.id, userId: r.user_id, body: r.body, secretId: r.secret_id, toolIds, voice: r.voice, version: r.version, createdAt: r.created_at, modifiedAt: r.modified_at,
  });

  /** The first reference that is not the user's own, if any. */
  const refusal = (userId: string, v: AgentValues): AgentRefusal | undefined => {
    if (v.secretId !== null && !ownedSecret.get(v.secretId, userId)) return { refused: 'secret' };
    const index = v.toolIds.findIndex((toolId) => !ownedTool.get(toolId, userId));
    return index >= 0 ? { refused: 'tool', index } : undefined;
  };
  const writeTools = (agentId: string, toolIds: readonly string[]) => toolIds.forEach((toolId, i) => insertTool.run(agentId, toolId, i));

  const create = sqlite.transaction((row: AgentRow): AgentRow | AgentRefusal => {
    const refused = refusal(row.userId, row);
    if (refused) return refused;
    insert.run(row.id, row.userId, row.body, row.secretId, row.voice, row.version, row.createdAt, row.modifiedAt);
    writeTools(row.id, row.toolIds);
    return row;
  });
  const change = sqlite.transaction((userId: string, id: string, version: number, v: AgentValues, modifiedAt: number): AgentUpdate => {
    if (!byUser.get(id, userId)) return 'not_found';
    const refused = refusal(userId, v);
    if (refused) return refused;
    const updated = update.get(v.body, v.secretId, v.voice, modifiedAt, id, userId, version);
    if (!updated) return 'conflict';
    clearTools.run(id);
    writeTools(id, v.toolIds);
    return toRow(updated, [...v.toolIds]);
  });
  const del = sqlite.transaction((userId: string, id: string): AgentRow | undefined => {
    const raw = byUser.get(id, userId);
    if (!raw) return undefined;
    const row = toRow(raw);
    remove.get(id, userId);
    return row;
  });

  return {
    get: async (userId, id) => {
      const raw = byUser.get(id, userId);
      return raw ? toRow(raw) : undefined;
    },
    list: async (userId, limit, cursor) =>
      (cursor ? nextPage.all(userId, cursor.createdAt, cursor.createdAt, cursor.id, limit) : firstPage.all(userId, limit)).map((r) => toRow(r)),
    create: async (row) => create(row),
    update: async (userId, id, version, values, modifiedAt) => change(userId, id, version, values, modifiedAt),
    delete: async (userId, id) => del(userId, id),
  };
}
