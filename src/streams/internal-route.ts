/**
 * The route another API process forwards a stream's request to (forward.ts, routing.ts,
 * docs/streams-across-processes.md). No API key: the request is signed with a key derived
 * from the master key, and anything unsigned, signed otherwise or signed too long ago is 401
 * before a field is read. It runs the verb on a stream this process holds, never forwards it again.
 */
import type { Route } from '../platform/module.ts';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { validate } from '../schemas/ajv.ts';
import { StreamForward } from './schemas.ts';
import { FORWARD_HEADER, FORWARD_PREFIX, isForwardedVerb, verifyForward } from './forward.ts';
import type { StreamRouting } from './routing.ts';

export function internalStreamRoute(deps: { key: Buffer; clock: Clock; routing: StreamRouting }): Route {
  return {
    method: 'post', path: `${FORWARD_PREFIX}/{streamId}/{verb}`, tag: 'Internal', access: 'public', security: [],
    summary: 'A live stream\'s request forwarded by another API process of this deployment (signed with a key derived from the master key; not for clients)',
    params: [
      { name: 'streamId', in: 'path', description: 'a stream this process holds', required: true },
      { name: 'verb', in: 'path', description: 'sdp, ice, speak, interrupt, delete or speaker (an agent\'s chat answer spoken on the stream)', required: true },
    ],
    // The default limit (MIMIC_MAX_BODY_BYTES): a stream's bodies (an SDP, a candidate, a script of at most 40 000 characters) are far below it, envelope included.
    body: StreamForward,
    ok: { status: 200, description: 'what the stream\'s route answers' },
    errors: ['AuthorizationError', 'BadRequestError', 'SessionError', 'NotFoundError', 'ConflictError', 'InsufficientCreditsError', 'InvalidFileSizeError', 'ServiceUnavailableError'],
    handler: async (c) => {
      const text = await c.req.text();
      if (!verifyForward(deps.key, c.req.header(FORWARD_HEADER), c.req.path, text, deps.clock.now())) {
        throw new ApiError('AuthorizationError', 'This route takes only requests forwarded by another API process of this deployment');
      }
      const verb = c.req.param('verb')!;
      if (!isForwardedVerb(verb)) throw new ApiError('NotFoundError', `no stream verb ${verb}`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ApiError('BadRequestError', 'The forwarded body is not JSON');
      }
      const fwd = validate(StreamForward, parsed);
      return c.json(await deps.routing.here(verb, fwd.user_id, c.req.param('streamId')!, fwd.agent_id, fwd.body as Record<string, unknown>));
    },
  };
}
