import type { GuardedClient } from '../egress/client.ts';
import { LlmError, type ChatAnswer, type ChatModel, type ChatRequest } from './interface.ts';
import { DEFAULT_LIMITS, eventJson, postForEvents, type ExchangeLimits } from './exchange.ts';

/**
 * The hosted service's "custom LLM" contract: mimic POSTs `{messages, stream}` to the
 * builder's URL with its key in `x-api-key`; the server answers `{content}`, or streams
 * `data: {"choices":[{"delta":{"content": "..."}}]}` events ending with `data: [DONE]`. It has
 * no tool calls: an agent on a custom model calls no tools.
 */
export interface CustomChatOptions {
  url: string;
  client: GuardedClient;
  /** The `x-api-key` header (or none), opened for this call. */
  headers?: () => Promise<Record<string, string>>;
  /** The builder's own headers (never credentials: those are refused when the agent is written). */
  extraHeaders?: Record<string, string>;
  /** Only the last this many messages are sent (the system message is kept first). */
  maxMessages?: number;
  /** `streaming: false` asks for one `{content}` answer (`stream: false`); a stream is read either way. */
  stream?: boolean;
  limits?: Partial<ExchangeLimits>;
}

function lastMessages(messages: ChatRequest['messages'], max: number | undefined): ChatRequest['messages'] {
  if (max === undefined) return messages;
  const system = messages.filter((m) => m.role === 'system');
  const rest = messages.filter((m) => m.role !== 'system');
  return [...system, ...rest.slice(-max)];
}

export function createCustomChat(options: CustomChatOptions): ChatModel {
  const provider = 'custom';
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  return {
    provider,
    model: 'custom',
    async complete(request: ChatRequest): Promise<ChatAnswer> {
      if (request.tools?.length) throw new LlmError('bad_request', 'a custom model server takes no tools');
      let text = '';
      let done = false;
      const add = (piece: unknown) => {
        if (typeof piece !== 'string' || piece === '') return;
        text += piece;
        request.onText?.(piece);
      };
      const headers = { ...options.extraHeaders, ...(options.headers ? await options.headers() : {}) };
      const result = await postForEvents(
        options.client,
        { provider, url: options.url, headers, body: { messages: lastMessages(request.messages, options.maxMessages), stream: options.stream ?? true }, limits, ...(request.signal ? { signal: request.signal } : {}) },
        (e) => {
          if (done) return;
          if (e.data.trim() === '[DONE]') {
            done = true;
            return;
          }
          const chunk = eventJson<{ choices?: { delta?: { content?: unknown } }[]; content?: unknown }>(provider, e.data);
          add(chunk.choices?.[0]?.delta?.content ?? chunk.content);
        },
      );
      if (result.json !== undefined) {
        const content = (result.json as { content?: unknown }).content;
        if (typeof content !== 'string') throw new LlmError('protocol', 'the custom model server answered JSON without a `content` string');
        add(content);
      }
      return { text, toolCalls: [], finishReason: 'stop' };
    },
  };
}
