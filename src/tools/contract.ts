/**
 * What the tools capability offers the others: its runtime of tool calls (`TOOL_CALLS`), with
 * which agent chats run their model's server tool calls. Other capabilities import this file
 * only, never the tools folder's other files.
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { ToolCallDeps } from './call.ts';

export type { ToolCallDeps } from './call.ts';

export const TOOL_CALLS = defineServiceKey<ToolCallDeps>('toolCalls');
