import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ApiError } from '../errors.ts';
import type { AppEnv } from './env.ts';
import type { Logger } from '../log.ts';
import { closeIfBodyLeft } from './middleware.ts';

/**
 * The one place where an error becomes a response: always exactly a JsonError body, on a
 * connection that ends with it when the request body was left unread (closeIfBodyLeft).
 */
export function errorHandler(log: Logger) {
  const render = errorResponse(log);
  return (err: Error, c: Context<AppEnv>): Response => {
    const res = render(err, c);
    closeIfBodyLeft(c, res.status);
    return res;
  };
}

/** The log message of an ApiError whose kind no module declared (rendered as a 500). */
export const UNDECLARED_KIND = 'error of a kind no module declares';

function errorResponse(log: Logger) {
  return (err: Error, c: Context<AppEnv>): Response => {
    const status = err instanceof ApiError ? err.status : undefined;
    if (err instanceof ApiError && status !== undefined) {
      const body: Record<string, unknown> = { kind: err.kind, description: err.description };
      if (err.details !== undefined) body.details = err.details;
      return c.json(body, status as 400);
    }
    if (err instanceof HTTPException && err.status < 500) {
      const kind = err.status === 413 ? 'PayloadTooLargeError' : err.status === 401 ? 'AuthorizationError' : 'BadRequestError';
      return c.json({ kind, description: err.message || 'bad request' }, err.status);
    }
    const requestId = c.get('requestId');
    // The stack goes to the log (redacted), never to the client. An ApiError of a kind no
    // module declared is a defect, logged as such (the test harness fails on it).
    if (err instanceof ApiError) log.error(UNDECLARED_KIND, { request_id: requestId, kind: err.kind, error: err.message, stack: err.stack });
    else log.error('unhandled error', { request_id: requestId, error: err.message, stack: err.stack });
    return c.json(
      { kind: 'InternalServerError', description: 'An unexpected error occurred; quote the request id when you report it.', details: { request_id: requestId } },
      500,
    );
  };
}

export const notFoundHandler = (c: Context<AppEnv>): Response =>
  c.json({ kind: 'NotFoundError', description: `no route for ${c.req.method} ${c.req.path}` }, 404);
