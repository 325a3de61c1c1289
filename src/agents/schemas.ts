import { Type, type Static } from '@sinclair/typebox';
import { Double, IsoTime, escapeRegex } from '../schemas/common.ts';
import { speechSchemas } from '../speaking/schemas.ts';

/**
 * JSON Schemas of the agent endpoints: the hosted service's shapes (POST /agents, GET
 * /agents/{id}, PATCH, DELETE, GET /agents/me) with mimic's own parts: the model's
 * credential is a vault secret named by `llm.secret_id` (never a key in the body), and
 * `llm.tools` names the mimic tools the model may call. docs/agents.md says which hosted
 * fields are honoured, accepted and ignored, or refused.
 */
export const MAX_AGENT_TOOLS = 64;

export function agentSchemas(storageScheme: string) {
  const clip = speechSchemas(storageScheme);
  const s = escapeRegex(storageScheme);
  const imageUrl = (what: string) =>
    Type.String({ maxLength: 2048, pattern: `^(?:https|${s})://[^\\s]+$`, description: `https:// or ${storageScheme}:// URL (POST /images answers one) of ${what}` });

  const AgentVoice = Type.Object(
    {
      ...clip.Provider.properties,
      model_id: Type.Optional(Type.String({ maxLength: 100, description: 'a vendor voice model; accepted and passed over like voice_config' })),
      access: Type.Optional(Type.String({ maxLength: 40, description: 'accepted for compatibility and ignored' })),
    },
    { additionalProperties: false, $id: 'AgentVoice', description: 'the voice that speaks the answers, checked against GET /tts/voices; an unconfigured vendor falls back per MIMIC_VOICE_FALLBACK (metadata.voice says which voice speaks)' },
  );

  const TalkAgentPresenter = Type.Object(
    {
      type: Type.Literal('talk'),
      source_url: imageUrl('the photo that speaks (a face must be on it)'),
      thumbnail: Type.Optional(imageUrl('a picture shown before the chat starts (default: source_url)')),
      stitch: Type.Optional(Type.Boolean({ description: 'the face is put back into the whole photo (needs the stitch permission)' })),
      voice: Type.Optional(AgentVoice),
    },
    { additionalProperties: false, $id: 'TalkAgentPresenter', description: 'a photo that speaks' },
  );

  const ClipAgentPresenter = Type.Object(
    {
      type: Type.Literal('clip'),
      presenter_id: Type.String({ minLength: 1, maxLength: 200, description: 'a presenter of GET /clips/presenters' }),
      background: Type.Optional(clip.Background),
      voice: Type.Optional(AgentVoice),
    },
    { additionalProperties: false, $id: 'ClipAgentPresenter', description: 'a presenter that speaks (default voice: the presenter\'s own)' },
  );

  const PromptCustomization = Type.Object(
    {
      role: Type.Optional(Type.String({ maxLength: 1000 })),
      personality: Type.Optional(Type.String({ maxLength: 1000 })),
      topics_to_avoid: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 50 })),
      max_response_length: Type.Optional(Double({ minimum: 1 })),
      knowledge_source: Type.Optional(Type.Union([Type.Literal('base_knowledge'), Type.Literal('documents')])),
      prompt_knowledge: Type.Optional(Type.String({ maxLength: 20_000 })),
    },
    { additionalProperties: false, $id: 'AgentPromptCustomization', description: 'the hosted service\'s prompt settings: kept and shown; the chat adds them to the instructions in words (docs/agents.md)' },
  );

  /** The fields every provider has. */
  const llmCommon = {
    instructions: Type.Optional(Type.String({ maxLength: 20_000, description: 'the system prompt: what the agent does and how it behaves' })),
    template: Type.Optional(Type.Union([Type.Literal('rag-grounded'), Type.Literal('rag-ungrounded'), Type.Literal('assistant')])),
    prompt_customization: Type.Optional(PromptCustomization),
    temperature: Type.Optional(Double({ minimum: 0, maximum: 2, description: '0 to 2 (the hosted service allows 0 to 1)' })),
    secret_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'a vault secret of yours (POST /secrets) the model is called with; `secretId` is accepted as the hosted spelling' })),
    tools: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: MAX_AGENT_TOOLS,
        uniqueItems: true,
        description: `ids of your tools (POST /tools) the model may call, at most ${MAX_AGENT_TOOLS}; a deleted tool leaves the list`,
      }),
    ),
  };

  const OpenAiLlm = Type.Object(
    {
      provider: Type.Literal('openai'),
      model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the model name the server knows (e.g. gpt-4o-mini, llama3.2)' })),
      base_url: Type.Optional(
        Type.String({
          maxLength: 2048,
          pattern: '^https?://[^\\s]+$',
          description: 'an OpenAI-compatible chat-completions server (OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp), e.g. http://localhost:11434/v1; default https://api.openai.com/v1; https when secret_id is set',
        }),
      ),
      ...llmCommon,
    },
    { additionalProperties: false, $id: 'OpenAiAgentLlm' },
  );

  const CustomLlmEndpoint = Type.Object(
    {
      type: Type.Optional(Type.Literal('basic', { description: 'the key goes in x-api-key: it is llm.secret_id, never a key here' })),
      url: Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$', description: 'answers {content}, or streams deltas as server-sent events; https when secret_id is set' }),
      streaming: Type.Optional(Type.Boolean()),
      max_messages: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'how many of the last messages are sent' })),
      headers: Type.Optional(
        Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' }), Type.String({ maxLength: 1000 }), {
          maxProperties: 20,
          description: 'extra headers, never credentials (a name like authorization, *key*, *token*, *secret*, cookie is refused: use secret_id)',
        }),
      ),
      supports_sentiment: Type.Optional(Type.Boolean({ description: 'accepted for compatibility and ignored' })),
      version: Type.Optional(Type.String({ maxLength: 40, description: 'accepted for compatibility and ignored' })),
    },
    { additionalProperties: false, $id: 'CustomAgentLlmEndpoint' },
  );

  const CustomLlm = Type.Object(
    { provider: Type.Literal('custom'), custom: CustomLlmEndpoint, ...llmCommon },
    { additionalProperties: false, $id: 'CustomAgentLlm', description: 'the hosted service\'s custom model contract: a URL you run' },
  );

  const messages = (what: string) => Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { maxItems: 20, description: what }));

  const CreateAgent = Type.Object(
    {
      preview_name: Type.Optional(Type.String({ maxLength: 200, description: 'the agent\'s name' })),
      preview_description: Type.Optional(Type.String({ maxLength: 2000 })),
      presenter: Type.Union([TalkAgentPresenter, ClipAgentPresenter], { description: 'who speaks: a photo (talk) or a presenter (clip)' }),
      llm: Type.Union([OpenAiLlm, CustomLlm], { description: 'the language model that answers' }),
      greetings: messages('greetings, one shown at random when a chat starts'),
      starter_message: messages('questions offered to the user to start a chat'),
      user_data: clip.requestFields.user_data,
      embed: Type.Optional(Type.Boolean({ description: 'kept and shown (the hosted service\'s embedding switch); default false' })),
    },
    { additionalProperties: false, $id: 'CreateAgent' },
  );

  /** PATCH: any field of CreateAgent, merged into the agent (JSON merge patch), then the whole agent is validated. */
  const UpdateAgent = Type.Object(
    {
      preview_name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
      preview_description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
      presenter: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'merged into the presenter; a new type replaces it' })),
      llm: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'merged into llm (tools replaced as a whole); a new provider replaces it' })),
      greetings: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
      starter_message: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
      user_data: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      embed: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    },
    { additionalProperties: true, $id: 'UpdateAgent', description: 'a JSON merge patch of the agent (null removes an optional field); the result must be a valid CreateAgent' },
  );

  const Agent = Type.Object(
    {
      id: Type.String(),
      owner_id: Type.String(),
      created_at: IsoTime,
      modified_at: IsoTime,
      preview_name: Type.Optional(Type.String()),
      preview_description: Type.Optional(Type.String()),
      preview_thumbnail: Type.Optional(Type.String({ description: 'the talk presenter\'s thumbnail (or photo), or the clip presenter\'s thumbnail (a signed URL)' })),
      presenter: CreateAgent.properties.presenter,
      llm: Type.Union([OpenAiLlm, CustomLlm], { description: 'as written, with tools (always a list) and secret_id (when set); never a credential' }),
      greetings: Type.Array(Type.String()),
      starter_message: Type.Array(Type.String()),
      embed: Type.Boolean(),
      user_data: Type.Optional(Type.String()),
      metadata: Type.Object({
        voice: Type.Optional(
          Type.Object({
            type: Type.String(),
            voice_id: Type.String(),
            fallback: Type.Optional(Type.Object({ requested: Type.Object({ type: Type.String(), voice_id: Type.String() }), reason: Type.String() })),
          }, { description: 'the voice that will speak (after the fallback policy)' }),
        ),
      }),
    },
    { additionalProperties: false, $id: 'Agent' },
  );

  const AgentList = Type.Object({ agents: Type.Array(Agent), token: Type.Optional(Type.String()) }, { additionalProperties: false, $id: 'AgentList' });

  const AgentRuntime = Type.Object(
    {
      id: Type.String(),
      owner_id: Type.String(),
      name: Type.String({ description: 'preview_name, or "" when the agent has none' }),
      description: Type.Optional(Type.String({ description: 'preview_description' })),
      avatar: Type.Object(
        {
          type: Type.Union([Type.Literal('talk'), Type.Literal('clip')], { description: 'the presenter\'s type; never "expressive" (that switches the SDK to another transport)' }),
          thumbnail: Type.Optional(Type.String({ description: 'as preview_thumbnail' })),
          voice: Type.Optional(Type.Object({ type: Type.String(), voice_id: Type.String(), language: Type.Optional(Type.String()) }, { description: 'the voice that speaks (after the fallback policy)' })),
        },
        { additionalProperties: false },
      ),
      greetings: Type.Array(Type.String()),
      starter_message: Type.Array(Type.String()),
    },
    { additionalProperties: false, $id: 'AgentRuntime', description: 'what the agents SDK reads before it connects (GET /agents/{id}/runtime)' },
  );

  return { CreateAgent, UpdateAgent, Agent, AgentList, AgentVoice, AgentRuntime };
}

export type AgentSchemas = ReturnType<typeof agentSchemas>;
export type CreateAgentBody = Static<AgentSchemas['CreateAgent']>;
export type AgentView = Static<AgentSchemas['Agent']>;
export type AgentRuntimeView = Static<AgentSchemas['AgentRuntime']>;

/**
 * Agent chat: the hosted service's shapes (POST /agents/{agentId}/chat, POST
 * /agents/{agentId}/chat/{chatId}) with mimic's tool calls. Chat bodies accept and ignore
 * unknown keys: the hosted service's SDK sends fields its OpenAPI forbids (`id`, `parts`,
 * `interrupted`, a `created_at` that is not ISO).
 */
export const MAX_CHAT_MESSAGES = 500;
export const MAX_CHAT_MESSAGE_CHARS = 100_000;

export function chatSchemas() {
  const CreateChat = Type.Object(
    { persist: Type.Optional(Type.Boolean({ description: 'accepted for compatibility: mimic always keeps the chat' })) },
    { additionalProperties: true, $id: 'CreateAgentChat', description: 'unknown keys are accepted and ignored' },
  );

  const ToolCallOut = Type.Object(
    {
      id: Type.String({ description: 'the call id: post the result back with this as tool_call_id' }),
      name: Type.String({ description: 'the tool\'s name' }),
      tool_id: Type.String({ description: 'the mimic tool (a client tool)' }),
      arguments: Type.String({ description: 'the model\'s arguments, JSON text (not validated: the client runs the tool)' }),
    },
    { additionalProperties: false, $id: 'AgentChatToolCall' },
  );

  const ChatMessageIn = Type.Object(
    {
      role: Type.String({ maxLength: 40, description: 'user, assistant or tool; system and other roles are dropped (the agent\'s instructions are the system message)' }),
      content: Type.Optional(Type.Union([Type.String({ maxLength: MAX_CHAT_MESSAGE_CHARS }), Type.Null()])),
      tool_call_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'role tool: the id of the client tool call this answers' })),
    },
    { additionalProperties: true, $id: 'AgentChatMessageIn', description: 'unknown keys (id, parts, interrupted, created_at, ...) are accepted and ignored' },
  );

  const ChatBody = Type.Object(
    {
      messages: Type.Array(ChatMessageIn, { minItems: 1, maxItems: MAX_CHAT_MESSAGES, description: 'the whole conversation so far, oldest first, as the SDK sends it' }),
      streamId: Type.Optional(Type.String({ maxLength: 200, description: 'an open stream of this agent (POST /agents/{agentId}/streams): the answer is also spoken on it, sentence by sentence as the model streams it' })),
      sessionId: Type.Optional(Type.String({ maxLength: 2000, description: 'the session_id of that stream (required with streamId: a wrong one is a SessionError)' })),
      chatMode: Type.Optional(Type.String({ maxLength: 40, description: 'accepted and ignored (deprecated in the hosted API)' })),
    },
    { additionalProperties: true, $id: 'AgentChatMessages' },
  );

  const ChatAnswer = Type.Object(
    {
      result: Type.String({ description: 'the answer\'s words' }),
      matches: Type.Array(Type.Object({}), { description: 'always empty: mimic has no knowledge bases' }),
      documentIds: Type.Array(Type.String(), { description: 'always empty' }),
      chatMode: Type.String({ description: 'Functional' }),
      context: Type.Optional(Type.String()),
      toolCalls: Type.Optional(Type.Array(ToolCallOut, { description: 'client tools the model asked for: run them and post each result as {role: "tool", tool_call_id, content}' })),
      stopped: Type.Optional(Type.Literal('max_rounds', { description: 'the model kept asking for tools past the round limit: result holds what it said so far' })),
    },
    { additionalProperties: false, $id: 'AgentChatAnswer' },
  );

  const Chat = Type.Object(
    {
      id: Type.String(),
      agent_id: Type.String(),
      owner_id: Type.String(),
      created_at: IsoTime,
      modified_at: IsoTime,
      chat_mode: Type.String({ description: 'Functional' }),
      message_count: Type.Integer({ description: 'messages stored: the user\'s, the assistant\'s turns and tool results' }),
    },
    { additionalProperties: false, $id: 'AgentChat' },
  );

  const StoredMessage = Type.Object(
    {
      role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('tool')]),
      content: Type.Union([Type.String(), Type.Null()]),
      tool_calls: Type.Optional(Type.Array(Type.Object({ id: Type.String(), name: Type.String(), arguments: Type.String() }))),
      tool_call_id: Type.Optional(Type.String()),
      failed: Type.Optional(Type.Boolean({ description: 'a tool result that is a failure' })),
      created_at: IsoTime,
    },
    { additionalProperties: false, $id: 'AgentChatStoredMessage', description: 'tool results are stored as the model read them: every credential masked' },
  );

  const ChatWithMessages = Type.Object({ ...Chat.properties, messages: Type.Array(StoredMessage) }, { additionalProperties: false, $id: 'AgentChatWithMessages' });
  const ChatList = Type.Object({ chats: Type.Array(Chat), token: Type.Optional(Type.String()) }, { additionalProperties: false, $id: 'AgentChatList' });

  return { CreateChat, ChatBody, ChatAnswer, Chat, ChatWithMessages, ChatList };
}

export type ChatSchemas = ReturnType<typeof chatSchemas>;
export type ChatBody = Static<ChatSchemas['ChatBody']>;
export type ChatAnswerView = Static<ChatSchemas['ChatAnswer']>;
export type ChatView = Static<ChatSchemas['Chat']>;
export type ChatWithMessagesView = Static<ChatSchemas['ChatWithMessages']>;
