import type { PgDatabase } from '../../db/pg/database.ts';
import { statement } from '../../db/pg/tx.ts';
import { createSqliteChatStore, toChat, type ChatStore, type RawChat, type RawMessage, type StoredMessageText } from './store.ts';
import { onDialect, type Database } from '../../db/database.ts';

const CHAT = 'id, user_id, agent_id, message_count, client, created_at, modified_at';
const insert = statement(
  'chats_insert',
  'INSERT INTO agent_chats (id, user_id, agent_id, message_count, client, created_at, modified_at) VALUES ($1, $2, $3, 0, $4, $5, $6)',
);
const byId = statement('chats_get', `SELECT ${CHAT} FROM agent_chats WHERE id = $1 AND user_id = $2 AND agent_id = $3`);
const firstPage = statement('chats_first_page', `SELECT ${CHAT} FROM agent_chats WHERE user_id = $1 AND agent_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3`);
const nextPage = statement(
  'chats_next_page',
  `SELECT ${CHAT} FROM agent_chats WHERE user_id = $1 AND agent_id = $2 AND (created_at < $3 OR (created_at = $3 AND id < $4)) ORDER BY created_at DESC, id DESC LIMIT $5`,
);
const messagesOf = statement('chats_messages', 'SELECT seq, role, content, tool_calls, tool_call_id, failed, created_at FROM agent_chat_messages WHERE chat_id = $1 ORDER BY seq');
/**
 * One statement: the counter moves (the row stays locked until the statement commits, so a
 * concurrent append waits and then counts on from the new value) and the messages take the
 * numbers it gave. Two answers of one chat, in any processes, never share a seq.
 */
const append = statement(
  'chats_append',
  `WITH chat AS (
     UPDATE agent_chats SET message_count = message_count + cardinality($3::text[]), modified_at = GREATEST(modified_at, $4)
     WHERE id = $1 AND user_id = $2 RETURNING ${CHAT}
   ), written AS (
     INSERT INTO agent_chat_messages (chat_id, seq, role, content, tool_calls, tool_call_id, failed, created_at)
     SELECT chat.id, chat.message_count - cardinality($3::text[]) + m.ord, m.role, m.content, m.tool_calls, m.tool_call_id, m.failed, $4
     FROM chat, unnest($3::text[], $5::text[], $6::text[], $7::text[], $8::bigint[]) WITH ORDINALITY AS m(role, content, tool_calls, tool_call_id, failed, ord)
   )
   SELECT * FROM chat`,
);
const owners = statement('chats_owners', 'SELECT DISTINCT user_id FROM agent_chats ORDER BY user_id');
const ofUserColumns = 'SELECT m.chat_id AS "chatId", m.seq, m.role, m.content, m.tool_calls AS "toolCalls" FROM agent_chat_messages m JOIN agent_chats c ON c.id = m.chat_id';
const ofUserFirst = statement('chats_of_user_first', `${ofUserColumns} WHERE c.user_id = $1 ORDER BY m.chat_id, m.seq LIMIT $2`);
const ofUserNext = statement('chats_of_user_next', `${ofUserColumns} WHERE c.user_id = $1 AND (m.chat_id, m.seq) > ($2, $3) ORDER BY m.chat_id, m.seq LIMIT $4`);
const rewrite = statement(
  'chats_rewrite',
  `UPDATE agent_chat_messages m SET content = r.content, tool_calls = r.tool_calls
   FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) AS r(chat_id, seq, content, tool_calls)
   WHERE m.chat_id = r.chat_id AND m.seq = r.seq`,
);

/** The PostgreSQL ChatStore: the same contract as the SQLite one (test/stores/contracts/agent-chats.ts). */
export function createPgChatStore(h: PgDatabase): ChatStore {
  const { pool } = h;
  return {
    async create(row) {
      await insert(pool, [row.id, row.userId, row.agentId, row.client ?? null, row.createdAt, row.modifiedAt]);
      return { ...row, messageCount: 0 };
    },
    async get(userId, agentId, id) {
      const r = (await byId<RawChat>(pool, [id, userId, agentId])).rows[0];
      return r && toChat(r);
    },
    async list(userId, agentId, limit, cursor) {
      const res = cursor ? await nextPage<RawChat>(pool, [userId, agentId, cursor.createdAt, cursor.id, limit]) : await firstPage<RawChat>(pool, [userId, agentId, limit]);
      return res.rows.map(toChat);
    },
    async messages(chatId) {
      return (await messagesOf<RawMessage>(pool, [chatId])).rows.map((m) => ({
        seq: m.seq, role: m.role, content: m.content, toolCalls: m.tool_calls, toolCallId: m.tool_call_id, failed: m.failed === 1, createdAt: m.created_at,
      }));
    },
    async append(userId, chatId, messages, at) {
      const r = (
        await append<RawChat>(pool, [
          chatId, userId,
          messages.map((m) => m.role), at,
          messages.map((m) => m.content), messages.map((m) => m.toolCalls), messages.map((m) => m.toolCallId), messages.map((m) => (m.failed ? 1 : 0)),
        ])
      ).rows[0];
      return r && toChat(r);
    },
    async owners() {
      return (await owners<{ user_id: string }>(pool)).rows.map((r) => r.user_id);
    },
    async messagesOfUser(userId, after, limit) {
      const res = after ? await ofUserNext<StoredMessageText>(pool, [userId, after.chatId, after.seq, limit]) : await ofUserFirst<StoredMessageText>(pool, [userId, limit]);
      return res.rows;
    },
    async rewrite(messages) {
      if (messages.length === 0) return;
      await rewrite(pool, [messages.map((m) => m.chatId), messages.map((m) => m.seq), messages.map((m) => m.content), messages.map((m) => m.toolCalls)]);
    },
  };
}

/** The ChatStore on the database's dialect. */
export const chatStoreOn = (database: Database): ChatStore => onDialect(database, { sqlite: createSqliteChatStore, postgres: createPgChatStore });
