import type { GuardedClient } from '../egress/client.ts';
import { LlmError, type ChatAnswer, type ChatModel, type ChatRequest, type ToolCall } from './interface.ts';
import { DEFAULT_LIMITS, eventJson, postForEvents, type ExchangeLimits } from './exchange.ts';

/**
 * An OpenAI-compatible chat-completions client (`POST {base}/chat/completions`, `stream:
 * true`): OpenAI, Azure OpenAI's v1 endpoint, Ollama, vLLM and llama.cpp's server all speak
 * it. Text arrives as `choices[0].delta.content`; tool calls as `delta.tool_calls[{index, id?,
 * function: {name?, arguments?}}]` fragments, joined by index; the stream ends with `data:
 * [DONE]`. A server that ignores `stream` and answers one JSON completion is read too.
 */
export interface OpenAIChatOptions {
  /** e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama). */
  baseUrl: string;
  model: string;
  client: GuardedClient;
  /** The request's auth headers, opened for this call (e.g. from a vault secret); none for a local server. */
  headers?: () => Promise<Record<string, string>>;
  limits?: Partial<ExchangeLimits>;
  /** Provider name used in errors (`openai`, `ollama`...). */
  provider?: string;
}

interface Delta {
  content?: string | null;
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
}
interface Choice {
  delta?: Delta;
  message?: { content?: string | null; tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] };
  finish_reason?: string | null;
}
interface Completion {
  choices?: Choice[];
  error?: unknown;
}

const finishOf = (reason: string | null | undefined, calls: number): ChatAnswer['finishReason'] =>
  reason === 'tool_calls' || reason === 'function_call' || (calls > 0 && (reason === 'stop' || !reason)) ? 'tool_calls' : reason === 'stop' ? 'stop' : reason === 'length' ? 'length' : 'other';

export function createOpenAIChat(options: OpenAIChatOptions): ChatModel {
  const provider = options.provider ?? 'openai';
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };

  return {
    provider,
    model: options.model,
    async complete(request: ChatRequest): Promise<ChatAnswer> {
      const body = {
        model: options.model,
        messages: request.messages.map((m) =>
          m.role === 'assistant' && m.tool_calls?.length
            ? { role: 'assistant', content: m.content, tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
            : m,
        ),
        stream: true,
        ...(request.tools?.length
          ? { tools: request.tools.map((t) => ({ type: 'function', function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters } })) }
          : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      };
      let text = '';
      let finish: string | null | undefined;
      let done = false;
      const calls = new Map<number, ToolCall>();
      const headers = options.headers ? await options.headers() : {};
      const onDelta = (delta: Delta | undefined) => {
        if (typeof delta?.content === 'string' && delta.content !== '') {
          text += delta.content;
          request.onText?.(delta.content);
        }
        for (const [i, part] of (delta?.tool_calls ?? []).entries()) {
          const index = part.index ?? i;
          const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
          if (part.id) call.id = part.id;
          if (part.function?.name) call.name += part.function.name;
          if (part.function?.arguments) call.arguments += part.function.arguments;
          calls.set(index, call);
        }
      };
      const result = await postForEvents(
        options.client,
        { provider, url, headers, body, limits, ...(request.signal ? { signal: request.signal } : {}) },
        (e) => {
          if (done) return;
          if (e.data.trim() === '[DONE]') {
            done = true;
            return;
          }
          const chunk = eventJson<Completion>(provider, e.data);
          if (chunk.error !== undefined) throw new LlmError('unavailable', `the ${provider} model server reported an error in its stream`);
          const choice = chunk.choices?.[0];
          onDelta(choice?.delta);
          if (choice?.finish_reason) finish = choice.finish_reason;
        },
      );
      if (result.json !== undefined) {
        const choice = (result.json as Completion).choices?.[0];
        if (!choice?.message) throw new LlmError('protocol', `the ${provider} model server's answer has no message`);
        onDelta({ content: choice.message.content ?? null, tool_calls: (choice.message.tool_calls ?? []).map((c, index) => ({ index, ...c })) });
        finish = choice.finish_reason;
      }
      const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([index, c]) => ({ ...c, id: c.id || `call_${index}` }));
      if (toolCalls.some((c) => c.name === '')) throw new LlmError('protocol', `the ${provider} model server asked for a tool call without a name`);
      return { text, toolCalls, finishReason: finishOf(finish, toolCalls.length) };
    },
  };
}
