/**
 * Language models behind one interface: a chat that streams its text and may ask for tool
 * calls. Agents (issue 10) talk to a model only through this; the model's credential is
 * opened by the caller for each call and never enters the messages.
 */

/** A tool call the model asked for: its arguments are the model's JSON text, not yet validated. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool the model may call: its JSON Schema parameters, as the tool declares them. */
export interface ToolSpec {
  name: string;
  description?: string;
  parameters: object;
}

export interface ChatRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolSpec[];
  temperature?: number;
  /** Stops the exchange (a barge-in, a client gone): the answer rejects with reason `cancelled`. */
  signal?: AbortSignal;
  /** Each piece of the answer's text as it arrives (speech can start before the model ends). */
  onText?: (delta: string) => void;
}

export interface ChatAnswer {
  text: string;
  toolCalls: ToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length' | 'other';
}

export interface ChatModel {
  readonly provider: string;
  readonly model: string;
  complete(request: ChatRequest): Promise<ChatAnswer>;
}

export type LlmFailure = 'auth' | 'rate_limited' | 'bad_request' | 'unavailable' | 'timeout' | 'protocol' | 'cancelled' | 'refused';

/**
 * A model call that failed. The message names the provider, the HTTP status and at most a
 * short error code: never the server's own text, which can echo a credential (OpenAI's 401
 * quotes part of the key) or the conversation.
 */
export class LlmError extends Error {
  constructor(
    readonly reason: LlmFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}
