import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors.ts';
import type { AppEnv } from './env.ts';
import type { Logger } from '../log.ts';
import { lingerOnClose } from './linger.ts';

/**
 * The middleware every request passes, built once per app. Each one does the least it can
 * per request: nothing here is rebuilt per request, and none of it makes @hono/node-server
 * turn its lightweight Request or Response into a full WHATWG one (reading
 * `c.req.raw.body`, or setting a header after the response exists, does: that costs more
 * than the rest of the request; see docs/performance.md).
 */

interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: { setHeader(name: string, value: string): unknown };
}

/** Node's request and response under @hono/node-server; undefined in process (`app.request`). */
function nodeBindings(c: Context): NodeBindings | undefined {
  const env = c.env as Partial<NodeBindings> | undefined;
  return env?.incoming && env.outgoing ? (env as NodeBindings) : undefined;
}

/**
 * A request header (`name` in lower case), read from Node's parsed headers when served by
 * @hono/node-server: `c.req.header()` would first build a WHATWG Headers object of every
 * header of the request. Repeated headers read as Node joins them.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const node = nodeBindings(c);
  if (!node) return c.req.header(name);
  const value = node.incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Sets a response header before the response exists. Under @hono/node-server it goes on
 * Node's response, which merges it into the head it writes: `c.header()` would build a
 * WHATWG Headers object for the response, and the adapter would then copy it header by
 * header. In process (`app.request`) it goes through Hono.
 */
export function responseHeader(c: Context, name: string, value: string): void {
  const outgoing = nodeBindings(c)?.outgoing;
  if (outgoing) outgoing.setHeader(name, value);
  else c.header(name, value);
}

/** Random bytes for request ids, drawn 4 KiB at a time instead of one syscall per request. */
let idPool = Buffer.alloc(0);
let idAt = 0;
export function newRequestId(): string {
  if (idAt + 8 > idPool.length) {
    idPool = randomBytes(4096);
    idAt = 0;
  }
  const id = `req_${idPool.toString('hex', idAt, idAt + 8)}`;
  idAt += 8;
  return id;
}

/**
 * Gives the request an id (on `c.get('requestId')` and the `x-request-id` response header)
 * and, when `logRequests`, writes one log line when it is answered.
 */
export function requestContext(log: Logger, logRequests: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = newRequestId();
    c.set('requestId', requestId);
    // Before next(), on Node's response when there is one (Node merges it into the head it
    // writes), else through Hono: either way it joins the response as it is built. Set after
    // next() through Hono, it made Hono copy every finished response through a stream.
    responseHeader(c, 'x-request-id', requestId);
    if (!logRequests) return next();
    const started = performance.now();
    await next();
    log.info('request', {
      request_id: requestId,
      method: c.req.method,
      // The path only: query strings carry signatures and tokens.
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      user_id: c.get('user')?.id,
    });
  };
}

/**
 * Refuses a request body larger than `maxSize` bytes with 413 PayloadTooLargeError, whatever
 * the method (GET and HEAD carry none). A request with a Content-Length (which Node's parser
 * holds the body to), or with neither a length nor chunks (it has no body), is decided from
 * its headers alone; only a chunked body is counted as it streams in, and stops being read
 * past the limit. In process (`app.request`) a body has no Content-Length, so it is counted.
 */
export function bodyLimit(maxSize: number): MiddlewareHandler<AppEnv> {
  const tooLarge = (): never => {
    throw new ApiError('PayloadTooLargeError', `The request body is larger than the limit of ${maxSize} bytes`);
  };
  const streaming = streamingBodyLimit({ maxSize, onError: tooLarge });
  return (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const chunked = requestHeader(c, 'transfer-encoding');
    const length = requestHeader(c, 'content-length');
    if (chunked === undefined) {
      if (length !== undefined) return Number.parseInt(length || '0', 10) > maxSize ? tooLarge() : next();
      // Over HTTP/1.1, no length and no chunks is no body (a DELETE as most clients send it).
      if (nodeBindings(c)) return next();
    }
    return streaming(c, next);
  };
}

/**
 * Says `Connection: close` on an answer given before the request body was read to its end,
 * when what is left of it cannot be skipped safely on a kept-alive connection: after a 413
 * (the rest may be of any size, and @hono/node-server skips at most 64 MiB or 500 ms of an
 * unread body before it cuts the connection), before a large body was read at all (an
 * unknown path: largeUnreadBody), and after a body read part of the way (a
 * counted limit, a capped upload: the adapter's skip stalls on a body that was read from,
 * and cuts the connection 500 ms later). Without it, a keep-alive client sends its next
 * request on a connection about to be cut, and that request is lost unanswered; with it,
 * the client opens a new connection, and this one ends in stages (lingerOnClose) so that
 * the answer is not lost either. Only on a real socket: in process there is no connection.
 */
export function closeIfBodyLeft(c: Context, status: number): void {
  const node = nodeBindings(c);
  if (!node) return;
  const { incoming, outgoing } = node;
  const bodyLeft = !incoming.readableEnded && (incoming.readableDidRead || largeUnreadBody(incoming));
  if (status !== 413 && !bodyLeft) return;
  outgoing.setHeader('connection', 'close');
  lingerOnClose(incoming);
}

/** Past this, a body never read is not left to the adapter's skip (64 MiB or 500 ms, then a cut). */
const SKIPPABLE_BYTES = 64 * 1024;

/**
 * A body announced and not read at all (an unknown path, a refusal before the body mattered)
 * that the adapter's skip may not get through in time: chunked (of any size), or longer than
 * SKIPPABLE_BYTES. (A path of `..` segments that the client normalised to no route with 4 MiB
 * chunked after it lost the next request on its connection: found by the hostile-input suite.)
 */
function largeUnreadBody(incoming: IncomingMessage): boolean {
  const te = incoming.headers['transfer-encoding'];
  if (typeof te === 'string' && te.toLowerCase().includes('chunked')) return true;
  const length = incoming.headers['content-length'];
  return typeof length === 'string' && Number.parseInt(length, 10) > SKIPPABLE_BYTES;
}
