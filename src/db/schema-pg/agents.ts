import { pgTable, text, bigint, index, primaryKey, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './core.ts';
import { secrets, tools } from './vault.ts';

/** Times are integer milliseconds since the epoch. docs/agents.md describes the fields. */

/**
 * An agent: a presenter, a language model and what it may call. `body` holds the validated
 * request fields (JSON) except the two references, which are columns so the database keeps
 * them to the same user's rows: the model's credential (`secret_id`) and the tools
 * (agent_tools).
 */
export const agents = pgTable(
  'agents',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** JSON: preview_name, preview_description, presenter, llm (without tools and secret_id), greetings, ... */
    body: text('body').notNull(),
    /** The vault secret the model's provider is called with; a deleted secret leaves the agent without one. */
    secretId: text('secret_id').references(() => secrets.id, { onDelete: 'set null' }),
    /** JSON: the voice that will speak ({type, voiceId, fallback?}), resolved when the agent was written. */
    voice: text('voice'),
    /** Bumped by every update: a PATCH applies only over the version it read. */
    version: bigint('version', { mode: 'number' }).notNull().default(1),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    modifiedAt: bigint('modified_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('agents_user_idx').on(t.userId, t.createdAt, t.id), index('agents_secret_idx').on(t.secretId)],
);

/** The tools an agent's model may call, in the order given; a deleted tool leaves its agents. */
export const agentTools = pgTable(
  'agent_tools',
  {
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    toolId: text('tool_id')
      .notNull()
      .references(() => tools.id, { onDelete: 'cascade' }),
    position: bigint('position', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.toolId] }), index('agent_tools_tool_idx').on(t.toolId)],
);

export type AgentDbRow = typeof agents.$inferSelect;

/** A chat with an agent (POST /agents/{agentId}/chat); deleting the agent deletes its chats. */
export const agentChats = pgTable(
  'agent_chats',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    /** Messages written so far: the next message's `seq` comes from it, in the same statement. */
    messageCount: bigint('message_count', { mode: 'number' }).notNull().default(0),
    /** `<client key id>:<external id>` of the browser's end user who started it: only they may continue it by client key. Null: started by the owner. */
    client: text('client'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    modifiedAt: bigint('modified_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('agent_chats_agent_idx').on(t.userId, t.agentId, t.createdAt, t.id)],
);

/**
 * One message of a chat, in order: the user's message, the assistant's turns (with the tool
 * calls it asked for, as JSON) and the tool results the model read (already masked).
 */
export const agentChatMessages = pgTable(
  'agent_chat_messages',
  {
    chatId: text('chat_id')
      .notNull()
      .references(() => agentChats.id, { onDelete: 'cascade' }),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    role: text('role').notNull(),
    content: text('content'),
    /** JSON: [{id, name, arguments}] of an assistant turn that asked for tools. */
    toolCalls: text('tool_calls'),
    toolCallId: text('tool_call_id'),
    /** A tool result that is a failure (validation, upstream error): 1, else 0. */
    failed: bigint('failed', { mode: 'number' }).notNull().default(0),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.chatId, t.seq] })],
);

/**
 * A browser's client key (docs/agents.md, "Client keys"): one agent of its owner, reachable
 * only from `allowed_origins` (JSON array of origins). The key itself is never stored: only
 * its HMAC-SHA256 under a key derived from the master key, as API keys. Revoking sets
 * `revoked_at`; deleting the agent deletes its keys.
 */
export const clientKeys = pgTable(
  'client_keys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    /** The first characters of the key, enough to tell keys apart. */
    prefix: text('prefix').notNull(),
    name: text('name'),
    /** JSON array of origins (`https://example.com`). */
    allowedOrigins: text('allowed_origins').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
  },
  (t) => [uniqueIndex('client_keys_hash_idx').on(t.hash), index('client_keys_agent_idx').on(t.agentId, t.createdAt, t.id)],
);

export type ClientKeyDbRow = typeof clientKeys.$inferSelect;
