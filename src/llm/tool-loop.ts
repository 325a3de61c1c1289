import { LlmError, type ChatMessage, type ChatModel, type ToolCall, type ToolSpec } from './interface.ts';

/**
 * The tool-call loop of one answer: the model answers; when it asks for server tools, each
 * runs through `runServerTool` (mimic's tool runtime: arguments validated against the tool's
 * schema, the secret's header attached, the result masked) and the results go back to the
 * model, until it answers in words, asks for a client tool (handed back to the caller: the
 * browser runs it and posts its result), or a limit is reached.
 */

/** What a server tool call gave the model: the text it reads (already masked), and whether it failed. */
export interface ToolOutcome {
  content: string;
  failed: boolean;
}

export interface ToolLoopLimits {
  /** Model calls in one answer (each round trip after tool results counts). */
  maxRounds: number;
  /** Tool calls the model may ask for in one round. */
  maxCallsPerRound: number;
  /** Characters of one tool result given to the model (a longer result is cut, and says so). */
  maxResultChars: number;
}

export const DEFAULT_TOOL_LOOP_LIMITS: ToolLoopLimits = { maxRounds: 5, maxCallsPerRound: 8, maxResultChars: 16_000 };

export interface ToolLoopInput {
  model: ChatModel;
  messages: readonly ChatMessage[];
  /** Server tools (run here) and client tools (handed back), by name. */
  serverTools: readonly ToolSpec[];
  clientTools?: readonly ToolSpec[];
  runServerTool(call: ToolCall, signal?: AbortSignal): Promise<ToolOutcome>;
  onText?: (delta: string) => void;
  /** Called after each server tool call (for the audit trail and the chat's record). */
  onToolCall?: (call: ToolCall, outcome: ToolOutcome) => void;
  signal?: AbortSignal;
  temperature?: number;
  limits?: Partial<ToolLoopLimits>;
}

export interface ToolLoopResult {
  /** The answer's words (all rounds). */
  text: string;
  /** Every message the loop added after the input: assistant turns and tool results, in order. */
  added: ChatMessage[];
  /** Client tool calls the caller must hand to the browser; the answer continues when their results come back. */
  clientCalls: ToolCall[];
  rounds: number;
  /** Why the loop stopped before the model answered in words, if it did. */
  stopped?: 'max_rounds';
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}… [cut: ${text.length - max} more characters]`);

export async function answerWithTools(input: ToolLoopInput): Promise<ToolLoopResult> {
  const limits = { ...DEFAULT_TOOL_LOOP_LIMITS, ...input.limits };
  const server = new Set(input.serverTools.map((t) => t.name));
  const client = new Set((input.clientTools ?? []).map((t) => t.name));
  const tools = [...input.serverTools, ...(input.clientTools ?? [])];
  const added: ChatMessage[] = [];
  let text = '';
  for (let round = 1; round <= limits.maxRounds; round++) {
    const answer = await input.model.complete({
      messages: [...input.messages, ...added],
      ...(tools.length ? { tools } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
      onText: (d) => input.onText?.(d),
    });
    text += answer.text;
    if (answer.toolCalls.length === 0) {
      added.push({ role: 'assistant', content: answer.text });
      return { text, added, clientCalls: [], rounds: round };
    }
    added.push({ role: 'assistant', content: answer.text || null, tool_calls: answer.toolCalls });
    const clientCalls = answer.toolCalls.filter((c) => client.has(c.name));
    for (const [i, call] of answer.toolCalls.entries()) {
      if (client.has(call.name)) continue;
      let outcome: ToolOutcome;
      if (i >= limits.maxCallsPerRound) outcome = { content: `Not run: at most ${limits.maxCallsPerRound} tool calls per answer round.`, failed: true };
      else if (!server.has(call.name)) outcome = { content: `There is no tool named ${JSON.stringify(call.name.slice(0, 100))}.`, failed: true };
      else {
        if (input.signal?.aborted) throw new LlmError('cancelled', 'the answer was cancelled');
        const ran = await input.runServerTool(call, input.signal);
        input.onToolCall?.(call, ran);
        outcome = { ...ran, content: cut(ran.content, limits.maxResultChars) };
      }
      added.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
    }
    if (clientCalls.length > 0) return { text, added, clientCalls, rounds: round };
  }
  return { text, added, clientCalls: [], rounds: limits.maxRounds, stopped: 'max_rounds' };
}
