import type { Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import type { Route, RouteParam } from '../platform/module.ts';
import type { ErrorKind } from '../errors.ts';
import { jsonBody, optionalJsonBody } from '../http/body.ts';
import { validate } from '../schemas/ajv.ts';
import { CreateStreamResponse, SpeakResponse, StreamAnswer, StreamIce, StreamSession, StreamSpeak, StreamStatus } from './schemas.ts';
import type { StreamVariant } from './interface.ts';
import type { StreamService } from './hub.ts';
import type { StreamRouting } from './routing.ts';
import type { StreamVerb } from './forward.ts';
import { DEFAULT_SESSION_TIMEOUT_S } from './timeouts.ts';

/** A body that may be absent (DELETE, interrupt): absent or empty is `{}`, so the missing session_id is the SessionError. */
const lenientBody = async (c: Context<AppEnv>): Promise<Record<string, unknown>> => (await optionalJsonBody(c)) ?? {};

/**
 * The routes of one stream variant (`/talks/streams`, `/clips/streams`, `/agents/{agentId}/streams`):
 * thin handlers over the stream service; a request for a stream of another API process is
 * forwarded there (routing.ts).
 */
export function streamRoutes(service: StreamService, routing: StreamRouting, variant: StreamVariant): Route[] {
  const { prefix, tag } = variant;
  const prefixParams = [...prefix.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const params = (c: Context<AppEnv>): Record<string, string> => Object.fromEntries(prefixParams.map((n) => [n, c.req.param(n)!]));
  const agentOf = (c: Context<AppEnv>): string | undefined => (prefixParams.includes('agentId') ? c.req.param('agentId') : undefined);
  const own: RouteParam[] = prefixParams.map((name) => ({ name, in: 'path', description: `the ${name.replace(/Id$/, '')} id`, required: true }));
  const streamParam: RouteParam = { name: 'streamId', in: 'path', description: 'the stream id the create answer gave', required: true };
  const withStream = [...own, streamParam];
  // ServiceUnavailableError: the API process holding the stream did not answer a forwarded request.
  const sessionErrors: ErrorKind[] = ['BadRequestError', 'SessionError', 'AuthorizationError', 'NotFoundError', 'ServiceUnavailableError'];
  const sid = (c: Context<AppEnv>) => c.req.param('streamId')!;
  const kind = prefix.split('/')[1]!;
  const run = (verb: StreamVerb, c: Context<AppEnv>, raw: Record<string, unknown>) => routing.run(verb, c.get('user').id, sid(c), agentOf(c), raw);

  const routes: Route[] = [
    {
      method: 'post', path: prefix, summary: 'Open a live stream: answers the server\'s WebRTC offer, a session_id and the ICE servers', tag, params: own,
      body: variant.body,
      ok: { status: 201, schema: CreateStreamResponse, description: 'the stream, waiting for the client\'s SDP answer' },
      errors: ['BadRequestError', 'InvalidFaceError', 'InvalidFileSizeError', 'AuthorizationError', 'PermissionError', 'NotFoundError', 'TooManyRequestsError', 'ServiceUnavailableError'],
      handler: async (c) => {
        const client = c.get('user').client;
        const body = validate(variant.body, await jsonBody(c)) as Record<string, unknown> & {
          stream_warmup?: boolean; fluent?: boolean; session_timeout?: number; compatibility_mode?: 'on' | 'off' | 'auto';
        };
        const opts = {
          warmup: body.stream_warmup ?? false,
          fluent: body.fluent ?? false,
          timeoutS: body.session_timeout ?? DEFAULT_SESSION_TIMEOUT_S,
          compatibility: body.compatibility_mode ?? 'auto',
          ...(client ? { client: { keyId: client.clientKeyId, endUser: client.externalId } } : {}),
          kind,
        };
        const req = { user: c.get('user'), params: params(c) };
        return c.json(await service.create(c.get('user').id, () => variant.source(req, body), opts), 201);
      },
    },
    {
      method: 'post', path: `${prefix}/{streamId}/sdp`, summary: 'Give the client\'s SDP answer', tag, params: withStream, body: StreamAnswer,
      ok: { status: 200, schema: StreamStatus, description: 'the answer is applied; media starts' },
      errors: [...sessionErrors, 'ConflictError'],
      handler: async (c) => c.json(await run('sdp', c, await jsonBody(c))),
    },
    {
      method: 'post', path: `${prefix}/{streamId}/ice`, summary: 'Give one of the client\'s ICE candidates (no candidate: the end of candidates)', tag, params: withStream, body: StreamIce,
      ok: { status: 200, schema: StreamStatus, description: 'the candidate is added' },
      errors: sessionErrors,
      handler: async (c) => c.json(await run('ice', c, await jsonBody(c))),
    },
    {
      method: 'post', path: `${prefix}/{streamId}`, summary: 'Speak a script on the stream (queued after what is playing)', tag, params: withStream, body: StreamSpeak,
      ok: { status: 200, schema: SpeakResponse, description: 'the script is queued; stream/started and stream/done follow on the data channel' },
      errors: [...sessionErrors, 'ConflictError', 'InsufficientCreditsError', 'InvalidFileSizeError'],
      handler: async (c) => c.json(await run('speak', c, await jsonBody(c))),
    },
    {
      method: 'post', path: `${prefix}/{streamId}/interrupt`, summary: 'Barge in: stop the current speech at once and drop the queued scripts', tag, params: withStream, body: StreamSession, bodyOptional: true,
      ok: { status: 200, schema: StreamStatus, description: 'interrupted; stream/done (interrupted) follows for the script that was playing' },
      errors: sessionErrors,
      handler: async (c) => c.json(await run('interrupt', c, await lenientBody(c))),
    },
    {
      method: 'delete', path: `${prefix}/{streamId}`, summary: 'Close the stream', tag, params: withStream, body: StreamSession, bodyOptional: true,
      ok: { status: 200, schema: StreamStatus, description: 'closed' },
      errors: sessionErrors,
      handler: async (c) => c.json(await run('delete', c, await lenientBody(c))),
    },
  ];
  // A variant a browser's client key may use (the agent's streams) opts every route in.
  return variant.clientKey ? routes.map((r) => ({ ...r, clientKey: variant.clientKey! })) : routes;
}
