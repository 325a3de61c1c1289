import type { Store } from '../../db/client.ts';
import type { PageCursor } from '../../pagination.ts';

/** A chat with an agent as stored. */
export interface ChatRow {
  id: string;
  userId: string;
  agentId: string;
  messageCount: number;
  /** `<client key id>:<external id>` when a browser's client key started it (only that end user may continue it by client key). */
  client?: string;
  createdAt: number;
  modifiedAt: number;
}

/** One stored message; `toolCalls` is JSON ([{id, name, arguments}]) on an assistant turn that asked for tools. */
export interface ChatMessageRow {
  seq: number;
  role: 'user' | 'assistant' | 'tool';
  content: string | null;
  toolCalls: string | null;
  toolCallId: string | null;
  failed: boolean;
  createdAt: number;
}

export type NewChatMessage = Omit<ChatMessageRow, 'seq' | 'createdAt'>;

/** A stored message as the re-masking data migration reads and rewrites it. */
export interface StoredMessageText {
  chatId: string;
  seq: number;
  role: ChatMessageRow['role'];
  content: string | null;
  toolCalls: string | null;
}

export interface ChatStore {
  create(row: ChatRow): Promise<ChatRow>;
  get(userId: string, agentId: string, id: string): Promise<ChatRow | undefined>;
  /** Newest first, `limit` rows strictly after `cursor` in (created_at desc, id desc) order. */
  list(userId: string, agentId: string, limit: number, cursor: PageCursor | null): Promise<ChatRow[]>;
  /** All messages of a chat, in order. */
  messages(chatId: string): Promise<ChatMessageRow[]>;
  /** Appends messages after the last one, in one transaction; undefined when the chat is gone. */
  append(userId: string, chatId: string, messages: readonly NewChatMessage[], at: number): Promise<ChatRow | undefined>;
  /** The users that own at least one chat. */
  owners(): Promise<string[]>;
  /** Up to `limit` messages of the user's chats strictly after `after`, in (chat id, seq) order. */
  messagesOfUser(userId: string, after: { chatId: string; seq: number } | null, limit: number): Promise<StoredMessageText[]>;
  /** Replaces the content and tool calls of these messages, in one transaction. */
  rewrite(messages: readonly StoredMessageText[]): Promise<void>;
}

export type RawChat = { id: string; user_id: string; agent_id: string; message_count: number; client: string | null; created_at: number; modified_at: number };
export type RawMessage = { seq: number; role: ChatMessageRow['role']; content: string | null; tool_calls: string | null; tool_call_id: string | null; failed: number; created_at: number };

export const toChat = (r: RawChat): ChatRow => ({
  id: r.id, userId: r.user_id, agentId: r.agent_id, messageCount: r.message_count, ...(r.client !== null ? { client: r.client } : {}), createdAt: r.created_at, modifiedAt: r.modified_at,
});

export function createSqliteChatStore(handle: Store): ChatStore {
  const { sqlite } = handle;
  const insert = sqlite.prepare<[string, string, string, string | null, number, number]>(
    'INSERT INTO agent_chats (id, user_id, agent_id, message_count, client, created_at, modified_at) VALUES (?, ?, ?, 0, ?, ?, ?)',
  );
  const byId = sqlite.prepare<[string, string, string], RawChat>('SELECT * FROM agent_chats WHERE id = ? AND user_id = ? AND agent_id = ?');
  const firstPage = sqlite.prepare<[string, string, number], RawChat>(
    'SELECT * FROM agent_chats WHERE user_id = ? AND agent_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
  );
  const nextPage = sqlite.prepare<[string, string, number, number, string, number], RawChat>(
    'SELECT * FROM agent_chats WHERE user_id = ? AND agent_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?',
  );
  const messagesOf = sqlite.prepare<[string], RawMessage>('SELECT seq, role, content, tool_calls, tool_call_id, failed, created_at FROM agent_chat_messages WHERE chat_id = ? ORDER BY seq');
  // The counter moves and answers its new value in one statement: two answers of one chat never share a seq.
  const reserve = sqlite.prepare<[number, number, number, string, string], RawChat>(
    'UPDATE agent_chats SET message_count = message_count + ?, modified_at = CASE WHEN modified_at > ? THEN modified_at ELSE ? END WHERE id = ? AND user_id = ? RETURNING *',
  );
  const insertMessage = sqlite.prepare<[string, number, string, string | null, string | null, string | null, number, number]>(
    'INSERT INTO agent_chat_messages (chat_id, seq, role, content, tool_calls, tool_call_id, failed, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );

  const owners = sqlite.prepare<[], { user_id: string }>('SELECT DISTINCT user_id FROM agent_chats ORDER BY user_id');
  const ofUserColumns = `SELECT m.chat_id AS chatId, m.seq, m.role, m.content, m.tool_calls AS toolCalls FROM agent_chat_messages m JOIN agent_chats c ON c.id = m.chat_id`;
  const ofUserFirst = sqlite.prepare<[string, number], StoredMessageText>(`${ofUserColumns} WHERE c.user_id = ? ORDER BY m.chat_id, m.seq LIMIT ?`);
  const ofUserNext = sqlite.prepare<[string, string, number, number], StoredMessageText>(
    `${ofUserColumns} WHERE c.user_id = ? AND (m.chat_id, m.seq) > (?, ?) ORDER BY m.chat_id, m.seq LIMIT ?`,
  );
  const rewriteOne = sqlite.prepare<[string | null, string | null, string, number]>('UPDATE agent_chat_messages SET content = ?, tool_calls = ? WHERE chat_id = ? AND seq = ?');
  const rewrite = sqlite.transaction((messages: readonly StoredMessageText[]) => {
    for (const m of messages) rewriteOne.run(m.content, m.toolCalls, m.chatId, m.seq);
  });

  const append = sqlite.transaction((userId: string, chatId: string, messages: readonly NewChatMessage[], at: number): ChatRow | undefined => {
    const raw = reserve.get(messages.length, at, at, chatId, userId);
    if (!raw) return undefined;
    const first = raw.message_count - messages.length + 1;
    messages.forEach((m, i) => insertMessage.run(chatId, first + i, m.role, m.content, m.toolCalls, m.toolCallId, m.failed ? 1 : 0, at));
    return toChat(raw);
  });

  return {
    create: async (row) => {
      insert.run(row.id, row.userId, row.agentId, row.client ?? null, row.createdAt, row.modifiedAt);
      return { ...row, messageCount: 0 };
    },
    get: async (userId, agentId, id) => {
      const raw = byId.get(id, userId, agentId);
      return raw ? toChat(raw) : undefined;
    },
    list: async (userId, agentId, limit, cursor) =>
      (cursor ? nextPage.all(userId, agentId, cursor.createdAt, cursor.createdAt, cursor.id, limit) : firstPage.all(userId, agentId, limit)).map(toChat),
    messages: async (chatId) =>
      messagesOf.all(chatId).map((m) => ({ seq: m.seq, role: m.role, content: m.content, toolCalls: m.tool_calls, toolCallId: m.tool_call_id, failed: m.failed === 1, createdAt: m.created_at })),
    append: async (userId, chatId, messages, at) => append(userId, chatId, messages, at),
    owners: async () => owners.all().map((r) => r.user_id),
    messagesOfUser: async (userId, after, limit) => (after ? ofUserNext.all(userId, after.chatId, after.seq, limit) : ofUserFirst.all(userId, limit)),
    rewrite: async (messages) => rewrite(messages),
  };
}
