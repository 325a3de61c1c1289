/**
 * What the tools capability offers the others: its tool runtime (`TOOL_CALLS`), with which
 * agent chats look up a user's tools and run their model's server tool calls. Other
 * capabilities import this file only, never the tools folder's other files.
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { ToolCallResultView } from './schemas.ts';
import type { ToolRow } from '../db/schema.ts';

export type { ToolRow } from '../db/schema.ts';

export interface ToolCalls {
  /** One of the user's tools, or undefined when it is not theirs. */
  get(userId: string, toolId: string): Promise<ToolRow | undefined>;
  /** Calls one of the user's tools as POST /tools/{id}/call does (an ApiError for what fails); `chatId` lands in the audit row. */
  call(userId: string, toolId: string, raw: unknown, via?: { chatId?: string; externalId?: string }): Promise<ToolCallResultView>;
}

export const TOOL_CALLS = defineServiceKey<ToolCalls>('toolCalls');
