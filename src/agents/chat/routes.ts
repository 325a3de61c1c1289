import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ApiError } from '../../errors.ts';
import type { Route, RouteParam } from '../../platform/module.ts';
import type { AppEnv } from '../../http/env.ts';
import { jsonBody, optionalJsonBody } from '../../http/body.ts';
import { requestHeader } from '../../http/middleware.ts';
import { connectionIdFromAuthorization, type AuthUser } from '../../platform/caller.ts';
import { notificationScope } from '../notifications.ts';
import { pageParams } from '../../http/params.ts';
import { DEFAULT_PAGE_SIZE, parsePage } from '../../pagination.ts';
import { createChat, fetchChat, pageChats, prepareAnswer, type ChatDeps, type PreparedAnswer } from './service.ts';

const agentId: RouteParam = { name: 'agentId', in: 'path', description: 'the agent id', required: true };
const chatId: RouteParam = { name: 'chatId', in: 'path', description: 'the chat id (POST /agents/{agentId}/chat answers it)', required: true };

/** A body that may be absent (the SDK's create-chat call): none is `{}`. */
async function optionalBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  return (await optionalJsonBody(c)) ?? {};
}

/** A client key's end user, as a chat they start records them: `<client key id>:<external id>`. */
const chatClient = (user: AuthUser): string | undefined => (user.client ? `${user.client.clientKeyId}:${user.client.externalId}` : undefined);

const streamParam: RouteParam = { name: 'stream', in: 'query', description: 'true: the answer as server-sent events (also with Accept: text/event-stream): delta events, then answer or error' };

const wantsStream = (c: Context<AppEnv>) => c.req.query('stream') === 'true' || /\btext\/event-stream\b/i.test(c.req.header('accept') ?? '');

/**
 * The answer as server-sent events: `delta` `{"content"}` for each piece of text as the model
 * streams it, then one `answer` (the JSON answer, as without streaming) or one `error` (a
 * JsonError). Everything a client can get wrong was refused before, with its status.
 */
function streamAnswer(c: Context<AppEnv>, deps: ChatDeps, prepared: PreparedAnswer): Response {
  return streamSSE(c, async (sse) => {
    let writes = Promise.resolve();
    const send = (event: string, data: unknown) => {
      writes = writes.then(() => sse.writeSSE({ event, data: JSON.stringify(data) }));
      return writes;
    };
    try {
      const answer = await prepared.run({ signal: c.req.raw.signal, onText: (content) => void send('delta', { content }) });
      await send('answer', answer);
    } catch (err) {
      if (err instanceof ApiError) await send('error', { kind: err.kind, description: err.description, ...(err.details !== undefined ? { details: err.details } : {}) });
      else {
        deps.log.error('agent chat: the streamed answer failed', { error: err instanceof Error ? err.name : 'unknown' });
        await send('error', { kind: 'InternalServerError', description: 'An unexpected error occurred' });
      }
    }
  });
}

export function chatRoutes(deps: ChatDeps): Route[] {
  const { CreateChat, ChatBody, ChatAnswer, Chat, ChatWithMessages, ChatList } = deps.schemas;
  return [
    {
      method: 'post', path: '/agents/{agentId}/chat', summary: 'Start a chat with an agent', tag: 'Agents', params: [agentId], body: CreateChat, bodyOptional: true,
      clientKey: { agentParam: 'agentId' },
      ok: { status: 201, schema: Chat, description: 'the chat: post messages to /agents/{agentId}/chat/{id}' },
      errors: ['BadRequestError', 'AuthorizationError', 'NotFoundError'],
      handler: async (c) => {
        const user = c.get('user');
        return c.json(await createChat(deps, user.id, c.req.param('agentId')!, await optionalBody(c), chatClient(user)), 201);
      },
    },
    {
      method: 'post', path: '/agents/{agentId}/chat/{chatId}', summary: 'Ask the agent: the whole conversation in, the answer out (its server tools run on the way)', tag: 'Agents',
      params: [agentId, chatId, streamParam], body: ChatBody,
      clientKey: { agentParam: 'agentId' },
      ok: { status: 200, schema: ChatAnswer, description: 'the answer; toolCalls lists client tools to run and post back; result is "" when the text went out on a notifications socket' },
      errors: ['BadRequestError', 'SessionError', 'AuthorizationError', 'NotFoundError', 'ConflictError', 'ConfigError', 'PayloadTooLargeError', 'BadGatewayError', 'ServiceUnavailableError', 'GatewayTimeoutError'],
      handler: async (c) => {
        const user = c.get('user');
        // A client key's connection id is its own form's (`Client-Key <key>.<externalId>_<connectionId>`).
        const connectionId = user.client ? user.client.connectionId : connectionIdFromAuthorization(requestHeader(c, 'authorization'));
        const prepared = await prepareAnswer(deps, user.id, c.req.param('agentId')!, c.req.param('chatId')!, await jsonBody(c), {
          ...(connectionId ? { connectionId } : {}),
          ...(user.client ? { externalId: user.client.externalId, notifyAs: notificationScope(user), client: chatClient(user)! } : {}),
        });
        return wantsStream(c) ? streamAnswer(c, deps, prepared) : c.json(await prepared.run({ signal: c.req.raw.signal }));
      },
    },
    {
      method: 'get', path: '/agents/{agentId}/chats', summary: 'List the chats of an agent, newest first', tag: 'Agents', params: [agentId, ...pageParams],
      ok: { status: 200, schema: ChatList, description: 'a page of chats; token continues it' }, errors: ['BadRequestError', 'AuthorizationError', 'NotFoundError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query(), DEFAULT_PAGE_SIZE);
        return c.json(await pageChats(deps, c.get('user').id, c.req.param('agentId')!, limit, cursor));
      },
    },
    {
      method: 'get', path: '/agents/{agentId}/chat/{chatId}', summary: 'Get a chat with its stored messages (tool results as the model read them, masked)', tag: 'Agents', params: [agentId, chatId],
      ok: { status: 200, schema: ChatWithMessages, description: 'the chat and its messages, oldest first' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await fetchChat(deps, c.get('user').id, c.req.param('agentId')!, c.req.param('chatId')!)),
    },
  ];
}
