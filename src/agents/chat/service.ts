import { ApiError, notFound } from '../../errors.ts';
import { isoTime, type Clock, type IdFactory } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import type { GuardedClient } from '../../egress/client.ts';
import type { SecretDeps } from '../../secrets/contract.ts';
import type { ToolCalls } from '../../tools/contract.ts';
import { byCreation, toPage, type PageCursor } from '../../pagination.ts';
import { validate } from '../../schemas/ajv.ts';
import type { ChatAnswerView, ChatBody, ChatSchemas, ChatView, ChatWithMessagesView, CreateAgentBody } from '../schemas.ts';
import { answerWithTools, type ToolLoopLimits, type ToolOutcome } from '../../llm/tool-loop.ts';
import { LlmError, type ChatMessage, type ToolCall, type ToolSpec } from '../../llm/interface.ts';
import type { AgentRow, AgentStore } from '../store.ts';
import { agentModel, modelFailure } from './model.ts';
import type { AuditStore } from '../../audit/contract.ts';
import type { ChatMessageRow, ChatRow, ChatStore, NewChatMessage } from './store.ts';
import type { StreamHub, StreamSpeaker } from '../../streams/contract.ts';
import type { Notifications } from '../notifications.ts';
import { finishSpeech, guardedSpeaker, speakingModel } from './speech.ts';

/**
 * Agent chat (docs/agents.md, "Chat"): the model answers the conversation the client posts
 * (the SDK sends the whole history each time), with the agent's instructions as the system
 * message; server tools run through the tool runtime (arguments validated, the secret's
 * header attached, every form of the credential masked in what the model reads, the call
 * audited with the chat id); client tools are handed back in the answer and their results
 * accepted in a later message. Each answer's messages are stored.
 */

export interface ChatLimits extends ToolLoopLimits {
  /** The whole answer, every model round and tool call, in ms. */
  answerTimeoutMs: number;
}

export const DEFAULT_CHAT_LIMITS: ChatLimits = { maxRounds: 5, maxCallsPerRound: 8, maxResultChars: 16_000, answerTimeoutMs: 120_000 };

export interface ChatDeps {
  agents: AgentStore;
  chats: ChatStore;
  secrets: SecretDeps;
  client: GuardedClient;
  audit: Pick<AuditStore, 'append'>;
  /** The tool runtime; absent in a build without the tools module (the agent's tools are then not offered). */
  toolCalls: ToolCalls | undefined;
  /** Live streams an answer is spoken on (`streamId`/`sessionId`); absent in a build without the streams module. */
  streams: StreamHub | undefined;
  /** The notifications sockets an answer's text goes out on (`partial`, `chat/answer`). */
  notifications: Notifications;
  clock: Clock;
  newId: IdFactory;
  log: Logger;
  schemas: ChatSchemas;
  limits: ChatLimits;
}

type Json = Record<string, unknown>;
const CHAT_MODE = 'Functional';

const bad = (field: string, message: string) => new ApiError('BadRequestError', `Invalid request body: ${field} ${message}`, [{ field, message }]);

function presentChat(row: ChatRow): ChatView {
  return {
    id: row.id, agent_id: row.agentId, owner_id: row.userId, created_at: isoTime(row.createdAt), modified_at: isoTime(row.modifiedAt), chat_mode: CHAT_MODE, message_count: row.messageCount,
  };
}

async function agentOf(deps: ChatDeps, userId: string, agentId: string): Promise<AgentRow> {
  const agent = await deps.agents.get(userId, agentId);
  if (!agent) throw notFound('Agent');
  return agent;
}

/** `client`: the browser end user asking by client key (`<client key id>:<external id>`); they reach only the chats they started. */
async function chatOf(deps: ChatDeps, userId: string, agentId: string, chatId: string, client?: string): Promise<ChatRow> {
  await agentOf(deps, userId, agentId);
  const chat = await deps.chats.get(userId, agentId, chatId);
  if (!chat || (client !== undefined && chat.client !== client)) throw notFound('Chat');
  return chat;
}

export async function createChat(deps: ChatDeps, userId: string, agentId: string, raw: Json, client?: string): Promise<ChatView> {
  validate(deps.schemas.CreateChat, raw);
  await agentOf(deps, userId, agentId);
  const now = deps.clock.now();
  return presentChat(await deps.chats.create({ id: deps.newId('cht'), userId, agentId, messageCount: 0, ...(client !== undefined ? { client } : {}), createdAt: now, modifiedAt: now }));
}

export async function pageChats(deps: ChatDeps, userId: string, agentId: string, limit: number, cursor: PageCursor | null) {
  await agentOf(deps, userId, agentId);
  const page = toPage(await deps.chats.list(userId, agentId, limit + 1, cursor), limit, byCreation);
  return { chats: page.items.map(presentChat), ...(page.token ? { token: page.token } : {}) };
}

const storedCalls = (m: ChatMessageRow): ToolCall[] => (m.toolCalls ? (JSON.parse(m.toolCalls) as ToolCall[]) : []);

export async function fetchChat(deps: ChatDeps, userId: string, agentId: string, chatId: string): Promise<ChatWithMessagesView> {
  const chat = await chatOf(deps, userId, agentId, chatId);
  const messages = (await deps.chats.messages(chat.id)).map((m) => ({
    role: m.role,
    content: m.content,
    ...(m.toolCalls ? { tool_calls: storedCalls(m) } : {}),
    ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
    ...(m.role === 'tool' ? { failed: m.failed } : {}),
    created_at: isoTime(m.createdAt),
  }));
  return { ...presentChat(chat), messages };
}

/** The tools an agent's model is offered: its tools in order, by name (the first of a name wins). */
interface AgentTool {
  id: string;
  kind: 'server' | 'client';
  spec: ToolSpec;
}

async function toolsOf(deps: ChatDeps, agent: AgentRow): Promise<Map<string, AgentTool>> {
  const byName = new Map<string, AgentTool>();
  if (!deps.toolCalls) return byName;
  for (const id of agent.toolIds) {
    const tool = await deps.toolCalls.get(agent.userId, id);
    if (!tool || byName.has(tool.name)) continue;
    const parameters = (JSON.parse(tool.schema) as { parameters: object }).parameters;
    const kind = (JSON.parse(tool.config) as { type: string }).type === 'client' ? 'client' : 'server';
    byName.set(tool.name, { id: tool.id, kind, spec: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters } });
  }
  return byName;
}

/**
 * The system message: the agent's instructions, then its hosted `prompt_customization` in
 * words (role, personality, topics to avoid, an approximate length in words, and with
 * `knowledge_source: "base_knowledge"` its inline `prompt_knowledge`).
 */
export function systemPrompt(llm: CreateAgentBody['llm']): string | undefined {
  const p = llm.prompt_customization;
  const parts = [
    llm.instructions,
    p?.role && `Your role: ${p.role}`,
    p?.personality && `Your personality: ${p.personality}`,
    p?.topics_to_avoid?.length && `Do not discuss these topics: ${p.topics_to_avoid.join('; ')}`,
    p?.max_response_length !== undefined && `Keep each answer to about ${Math.round(p.max_response_length)} words or fewer.`,
    p?.prompt_knowledge && p.knowledge_source !== 'documents' && `What you know:\n${p.prompt_knowledge}`,
  ].filter((s): s is string => typeof s === 'string' && s.trim() !== '');
  return parts.length ? parts.join('\n\n') : undefined;
}

/**
 * The model's messages: the agent's instructions, then the posted conversation (user and
 * assistant words; a `tool` message answers a client tool call this chat handed out: the
 * stored assistant turn that asked for it, and the server results of that turn, go back in
 * before it). Other roles are dropped. Also answers the trailing user or tool messages: the
 * turn's input, which is stored.
 */
function modelMessages(instructions: string | undefined, posted: ChatBody['messages'], stored: ChatMessageRow[]): { messages: ChatMessage[]; input: ChatMessage[] } {
  const out: ChatMessage[] = instructions ? [{ role: 'system', content: instructions }] : [];
  const inserted = new Set<number>();
  // Messages put back from storage (or added for an unanswered call) are not the turn's input: they are stored already.
  const notPosted = new WeakSet<ChatMessage>();
  const putBack = (m: ChatMessage) => {
    notPosted.add(m);
    out.push(m);
  };
  posted.forEach((m, i) => {
    const content = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'user' && content !== '') out.push({ role: 'user', content });
    else if (m.role === 'assistant' && content !== '') out.push({ role: 'assistant', content });
    else if (m.role === 'tool') {
      const callId = m.tool_call_id;
      if (callId === undefined) throw bad(`messages.${i}.tool_call_id`, 'is required on a tool message');
      const at = stored.findIndex((s) => s.role === 'assistant' && storedCalls(s).some((c) => c.id === callId));
      if (at < 0) throw bad(`messages.${i}.tool_call_id`, 'names no tool call this chat handed out');
      if (stored.some((s) => s.role === 'tool' && s.toolCallId === callId)) throw bad(`messages.${i}.tool_call_id`, 'names a server tool call: mimic ran it and the model has its result');
      if (!inserted.has(at)) {
        inserted.add(at);
        const turn = stored[at]!;
        const last = out.at(-1);
        // The client may have posted the turn's words already: they come back with the turn itself.
        if (last?.role === 'assistant' && !('tool_calls' in last && last.tool_calls) && last.content === (turn.content ?? '')) out.pop();
        putBack({ role: 'assistant', content: turn.content, tool_calls: storedCalls(turn) });
        for (const s of stored.slice(at + 1)) {
          if (s.role !== 'tool') break;
          putBack({ role: 'tool', tool_call_id: s.toolCallId ?? '', content: s.content ?? '' });
        }
      }
      out.push({ role: 'tool', tool_call_id: callId, content });
    }
  });
  answerMissingCalls(out, notPosted);
  let start = out.length;
  while (start > 0 && (out[start - 1]!.role === 'user' || out[start - 1]!.role === 'tool')) start--;
  if (start === out.length) throw bad('messages', 'must end with a user message (or tool results) for the agent to answer');
  const input = out.slice(start).filter((m) => !notPosted.has(m));
  if (input.length === 0) throw bad('messages', 'must end with a user message (or tool results) for the agent to answer');
  return { messages: out, input };
}

/** Every call of an assistant turn needs a result before the model reads on: a call the client left unanswered says so. */
function answerMissingCalls(out: ChatMessage[], added: WeakSet<ChatMessage>): void {
  for (let i = 0; i < out.length; i++) {
    const m = out[i]!;
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    let end = i + 1;
    const answered = new Set<string>();
    while (end < out.length && out[end]!.role === 'tool') answered.add((out[end] as { tool_call_id: string }).tool_call_id), end++;
    const missing = m.tool_calls.filter((c) => !answered.has(c.id)).map((c): ChatMessage => ({ role: 'tool', tool_call_id: c.id, content: 'No result was posted for this call.' }));
    for (const m of missing) added.add(m);
    out.splice(end, 0, ...missing);
    i = end + missing.length - 1;
  }
}

const errorContent = (kind: string, description: string, details?: unknown) => JSON.stringify({ error: { kind, description, ...(details !== undefined ? { details } : {}) } });

/** One server tool call: the model's JSON arguments, run through the tool runtime; a failure is an outcome the model reads. */
async function runTool(deps: ChatDeps, toolCalls: ToolCalls, userId: string, via: { chatId: string; externalId?: string }, tool: AgentTool, call: ToolCall): Promise<ToolOutcome> {
  let input: unknown;
  try {
    input = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return { content: errorContent('ValidationError', 'The arguments are not valid JSON: give one JSON object that matches the tool\'s parameters'), failed: true };
  }
  try {
    const result = await toolCalls.call(userId, tool.id, { input }, via);
    return { content: JSON.stringify({ status: result.output.status, body: result.output.body }), failed: result.output.status >= 400 };
  } catch (err) {
    // ApiError descriptions name fields and hosts, never a credential.
    if (err instanceof ApiError) return { content: errorContent(err.kind, err.description, err.details), failed: true };
    deps.log.error('agent chat: a tool call failed inside mimic', { tool_id: tool.id, chat_id: via.chatId, error: err instanceof Error ? err.name : 'unknown' });
    return { content: errorContent('InternalServerError', 'The tool call failed inside mimic'), failed: true };
  }
}

const toStored = (m: ChatMessage, failed = false): NewChatMessage => ({
  role: m.role === 'system' ? 'user' : m.role,
  content: m.content,
  toolCalls: m.role === 'assistant' && m.tool_calls?.length ? JSON.stringify(m.tool_calls) : null,
  toolCallId: m.role === 'tool' ? m.tool_call_id : null,
  failed,
});

export interface AnswerOptions {
  signal?: AbortSignal;
  /** Each piece of the answer's text as the model streams it. */
  onText?: (delta: string) => void;
}

/** An answer checked and ready to run: everything a client can get wrong has been refused before the model is called. */
export interface PreparedAnswer {
  run(opts?: AnswerOptions): Promise<ChatAnswerView>;
}

/** Who asks, beyond the user: the connection id of the Authorization form (`~<id>`), which ties the request to notification sockets. */
export interface AnswerCaller {
  connectionId?: string;
  /** The end user a browser's client key named: it goes on the audit rows the answer writes. */
  externalId?: string;
  /** Whose notification sockets get the answer (notifications.ts `notificationScope`); default: the user's. */
  notifyAs?: string;
  /** The browser end user asking by client key (`<client key id>:<external id>`): only a chat they started answers. */
  client?: string;
}

export async function answerChat(deps: ChatDeps, userId: string, agentId: string, chatId: string, raw: Json, opts: AnswerOptions = {}): Promise<ChatAnswerView> {
  return (await prepareAnswer(deps, userId, agentId, chatId, raw)).run(opts);
}

/** The stream the answer is spoken on, when the body names one: a wrong stream or session is refused before the model is called. */
async function speakerFor(deps: ChatDeps, userId: string, agentId: string, chatId: string, body: ChatBody): Promise<StreamSpeaker | undefined> {
  const { streamId, sessionId } = body;
  if (streamId === undefined && sessionId === undefined) return undefined;
  if (streamId === undefined) throw bad('streamId', 'is required with sessionId (the agent stream to speak the answer on)');
  if (!deps.streams) throw new ApiError('ServiceUnavailableError', 'This mimic runs without live streams: post the chat without streamId and sessionId');
  // A missing sessionId is the hub's SessionError, as a wrong one is.
  const speaker = await deps.streams.speaker(userId, streamId, sessionId ?? '', { agentId });
  return guardedSpeaker(speaker, deps.log, { chat_id: chatId, stream_id: streamId });
}

export async function prepareAnswer(deps: ChatDeps, userId: string, agentId: string, chatId: string, raw: Json, caller: AnswerCaller = {}): Promise<PreparedAnswer> {
  const body = validate(deps.schemas.ChatBody, raw);
  const chat = await chatOf(deps, userId, agentId, chatId, caller.client);
  const agent = await agentOf(deps, userId, agentId);
  const llm = (JSON.parse(agent.body) as { llm: CreateAgentBody['llm'] }).llm;
  const { messages, input } = modelMessages(systemPrompt(llm), body.messages, await deps.chats.messages(chat.id));
  // The hosted custom contract has no tool calls: a custom model is offered none.
  const tools = llm.provider === 'custom' ? new Map<string, AgentTool>() : await toolsOf(deps, agent);
  // Last of the checks: a speaker is taken only for an answer that will run.
  const speaker = await speakerFor(deps, userId, agentId, chat.id, body);
  return { run: (opts = {}) => runAnswer(deps, { userId, chat, agent, llm, messages, input, tools, speaker, connectionId: caller.connectionId, externalId: caller.externalId, notifyAs: caller.notifyAs ?? userId }, opts) };
}

interface AnswerInput {
  userId: string;
  chat: ChatRow;
  agent: AgentRow;
  llm: CreateAgentBody['llm'];
  messages: ChatMessage[];
  input: ChatMessage[];
  tools: Map<string, AgentTool>;
  speaker: StreamSpeaker | undefined;
  connectionId: string | undefined;
  externalId: string | undefined;
  notifyAs: string;
}

/** The answer's text on the caller's notification sockets: one `partial` per piece as it streams, numbered from 0. */
function notifier(deps: ChatDeps, scope: string, connectionId: string | undefined) {
  let sequence = 0;
  return {
    partial: (content: string) => void deps.notifications.send(scope, connectionId, { event: 'partial', content, sequence: sequence++ }),
    /** True when a socket got the whole answer: the HTTP answer's `result` is then "" (the SDK would show it twice). */
    answer: (content: string) => deps.notifications.send(scope, connectionId, { event: 'chat/answer', content }) > 0,
  };
}

async function runAnswer(deps: ChatDeps, input: AnswerInput, opts: AnswerOptions): Promise<ChatAnswerView> {
  const notify = notifier(deps, input.notifyAs, input.connectionId);
  try {
    const answer = await answerRounds(deps, input, notify, opts);
    if (input.speaker) finishSpeech(input.speaker, answer.text, answer.toolCalls);
    return { ...answer.view, result: answer.text !== '' && notify.answer(answer.text) ? '' : answer.text };
  } catch (err) {
    // What was said stays said; the stream hears that the answer is over.
    input.speaker?.end();
    throw err;
  }
}

async function answerRounds(deps: ChatDeps, { userId, chat, agent, llm, messages, input, tools, speaker, externalId }: AnswerInput, notify: ReturnType<typeof notifier>, opts: AnswerOptions) {
  const specs = (kind: AgentTool['kind']) => [...tools.values()].filter((t) => t.kind === kind).map((t) => t.spec);
  // Calls that ran, and those that failed; a tool result of a call that never ran (over the per-round limit, an unknown name) is a failure too.
  const ranCalls = new Set<string>();
  const failedCalls = new Set<string>();
  const deadline = AbortSignal.timeout(deps.limits.answerTimeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  const model = agentModel(deps, { userId, chatId: chat.id, ...(externalId ? { externalId } : {}) }, llm, agent.secretId);
  const onText = (delta: string) => {
    opts.onText?.(delta);
    notify.partial(delta);
  };
  let result;
  try {
    result = await answerWithTools({
      model: speaker ? speakingModel(model, speaker) : model,
      messages,
      serverTools: specs('server'),
      clientTools: specs('client'),
      runServerTool: (call) => runTool(deps, deps.toolCalls!, userId, { chatId: chat.id, ...(externalId ? { externalId } : {}) }, tools.get(call.name)!, call),
      onToolCall: (call, outcome) => {
        ranCalls.add(call.id);
        if (outcome.failed) failedCalls.add(call.id);
      },
      signal,
      ...(llm.temperature !== undefined ? { temperature: llm.temperature } : {}),
      onText,
      limits: deps.limits,
    });
  } catch (err) {
    if (err instanceof LlmError) throw modelFailure(err, deadline.aborted);
    throw err;
  }
  const failed = (m: ChatMessage) => m.role === 'tool' && (failedCalls.has(m.tool_call_id) || !ranCalls.has(m.tool_call_id));
  const stored = [...input.map((m) => toStored(m)), ...result.added.map((m) => toStored(m, failed(m)))];
  await deps.chats.append(userId, chat.id, stored, deps.clock.now());
  const toolCalls = result.clientCalls.map((c) => ({ id: c.id, name: c.name, tool_id: tools.get(c.name)!.id, arguments: c.arguments }));
  const view: ChatAnswerView = {
    result: result.text,
    matches: [],
    documentIds: [],
    chatMode: CHAT_MODE,
    ...(toolCalls.length ? { toolCalls } : {}),
    ...(result.stopped ? { stopped: result.stopped } : {}),
  };
  return { text: result.text, toolCalls, view };
}
