import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ClientSocket, SocketCaller, SocketRoute } from '../platform/module.ts';
import {
  bearerTokenFromAuthorization, clientKeyFromAuthorization, connectionIdFromAuthorization, keysFromAuthorization, type AuthUser, type ClientKeyCredential,
} from '../platform/caller.ts';
import type { Logger } from '../log.ts';

/**
 * The WebSocket endpoints modules declare (`ModuleInstance.sockets`), upgraded on the HTTP
 * server: the same API key check as HTTP (the `Authorization` header, or the `authorization`
 * query parameter a browser has to use), a browser's Origin checked as CORS would, a message
 * size limit, a ping every heartbeat (a socket that missed the last pong is dropped), and a
 * clean 1001 close at shutdown. The request URL is never logged: its query may hold a key.
 */

export interface SocketServerDeps {
  routes: readonly SocketRoute<unknown>[];
  verifyKey: (apiKey: string) => Promise<AuthUser | null>;
  /** Bearer tokens (JWT), tried when the header carries no API key; absent: none verifies. */
  verifyToken?: (jws: string) => Promise<AuthUser | null>;
  /** Browsers' client keys, on the endpoints that opt in (SocketRoute.clientKey); absent: none verifies. */
  verifyClientKey?: (credential: ClientKeyCredential) => Promise<AuthUser | null>;
  /** MIMIC_CORS_ORIGINS: the browser origins allowed; the public URL's own origin always is. */
  corsOrigins: readonly string[];
  publicUrl: string;
  log: Logger;
  heartbeatMs?: number;
}

/** Where upgrade requests come from: a Node HTTP server. */
export interface UpgradeSource {
  on(event: 'upgrade', listener: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): unknown;
  off(event: 'upgrade', listener: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): unknown;
}

export interface SocketServer {
  /** Open sockets. */
  count(): number;
  /** Refuses new upgrades and closes every socket with 1001; resolves when all are closed. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 4096;
const DEFAULT_HEARTBEAT_MS = 30_000;
/** A socket that has not closed this long after its 1001 is cut. */
const CLOSE_GRACE_MS = 2000;

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' };

/** Answers an upgrade that is refused with a plain HTTP error in the JsonError shape, and drops the connection. */
function refuse(socket: Duplex, status: number, kind: string, description: string): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ kind, description });
  const extra = status === 401 ? 'WWW-Authenticate: Basic realm="mimic"\r\n' : '';
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`);
  socket.destroy();
}

function originAllowed(origin: string | undefined, deps: SocketServerDeps): boolean {
  // A client that is not a browser sends no Origin; its key is its only credential, as on HTTP.
  if (origin === undefined) return true;
  if (deps.corsOrigins[0] === '*' || deps.corsOrigins.includes(origin)) return true;
  return origin === new URL(deps.publicUrl).origin;
}

async function authenticate(header: string | undefined, deps: SocketServerDeps): Promise<SocketCaller | null> {
  const credential = clientKeyFromAuthorization(header);
  if (credential !== undefined) {
    const user = credential && deps.verifyClientKey ? await deps.verifyClientKey(credential) : null;
    return user && { user, ...(user.client?.connectionId ? { connectionId: user.client.connectionId } : {}) };
  }
  const keys = keysFromAuthorization(header);
  let user: AuthUser | null = null;
  for (const key of keys) if ((user = await deps.verifyKey(key))) break;
  if (!user && keys.length === 0 && deps.verifyToken) {
    const jws = bearerTokenFromAuthorization(header);
    if (jws !== undefined) user = await deps.verifyToken(jws);
  }
  if (!user) return null;
  const connectionId = connectionIdFromAuthorization(header);
  return { user, ...(connectionId ? { connectionId } : {}) };
}

function clientSocket(ws: WebSocket): ClientSocket {
  return {
    send(text) {
      if (ws.readyState !== ws.OPEN) return false;
      ws.send(text);
      return true;
    },
    sendBinary(data) {
      if (ws.readyState !== ws.OPEN) return false;
      ws.send(data, { binary: true });
      return true;
    },
    buffered: () => ws.bufferedAmount,
    close: (code, reason) => ws.close(code, reason),
    onClose(listener) {
      if (ws.readyState === ws.CLOSED) queueMicrotask(listener);
      else ws.once('close', () => listener());
    },
  };
}

export function attachSockets(server: UpgradeSource, deps: SocketServerDeps): SocketServer {
  const endpoints = new Map(
    deps.routes.map((route) => [route.path, { route, wss: new WebSocketServer({ noServer: true, maxPayload: route.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES }) }]),
  );
  const alive = new Map<WebSocket, boolean>();
  let closing = false;

  const accept = (ws: WebSocket, route: SocketRoute<unknown>, caller: unknown) => {
    alive.set(ws, true);
    const client = clientSocket(ws);
    ws.on('pong', () => alive.set(ws, true));
    ws.on('close', () => alive.delete(ws));
    // Oversized frames and protocol errors close the socket (ws sends 1009 or 1002); nothing more to do.
    ws.on('error', (err) => deps.log.warn('socket error', { path: route.path, error: err.name }));
    ws.on('message', (data, isBinary) => {
      if (isBinary && !route.binary) return ws.close(1003, 'text messages only');
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      try {
        if (isBinary) route.binary!(client, caller, bytes);
        else route.message?.(client, caller, bytes.toString('utf8'));
      } catch (err) {
        deps.log.error('socket message handler failed', { path: route.path, error: err instanceof Error ? err.name : 'unknown' });
      }
    });
    try {
      route.open(client, caller);
    } catch (err) {
      deps.log.error('socket open handler failed', { path: route.path, error: err instanceof Error ? err.name : 'unknown' });
      ws.close(1011, 'internal error');
    }
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://upgrade.invalid');
    const endpoint = endpoints.get(url.pathname);
    if (!endpoint) return refuse(socket, 404, 'NotFoundError', 'No WebSocket endpoint at this path');
    if (closing) return refuse(socket, 503, 'ServiceUnavailableError', 'The server is shutting down');
    const origin = req.headers.origin;
    const header = req.headers.authorization ?? url.searchParams.get('authorization') ?? undefined;
    const route = endpoint.route;
    // A client key's page is on one of the key's origins, checked once the key is known.
    const clientKey = !route.authorize && clientKeyFromAuthorization(header) !== undefined;
    if (!clientKey && !originAllowed(origin, deps)) return refuse(socket, 403, 'PermissionError', 'This origin may not open sockets (MIMIC_CORS_ORIGINS)');
    (route.authorize ? route.authorize(url) : authenticate(header, deps)).then(
      (caller) => {
        if (!caller) {
          const how = route.authorize ? 'this URL is not (or no longer) valid' : 'send Authorization: Basic <API_KEY> (or Bearer <token>), or ?authorization=<that header, URL-encoded>';
          return refuse(socket, 401, 'AuthorizationError', `Missing or invalid credentials: ${how}`);
        }
        const client = (caller as SocketCaller).user?.client;
        if (clientKey && client) {
          if (!route.clientKey) return refuse(socket, 403, 'PermissionError', "A client key reaches only its agent's runtime, streams, chat and notifications: this socket needs an API key or a bearer token");
          if (origin === undefined || !client.origins.includes(origin)) {
            return refuse(socket, 403, 'PermissionError', "A client key is accepted only from a browser page on one of its allowed origins");
          }
        }
        if (closing) return refuse(socket, 503, 'ServiceUnavailableError', 'The server is shutting down');
        if (socket.destroyed) return;
        endpoint.wss.handleUpgrade(req, socket, head, (ws) => accept(ws, endpoint.route, caller));
      },
      (err) => {
        deps.log.error('socket authentication failed', { error: err instanceof Error ? err.name : 'unknown' });
        refuse(socket, 503, 'ServiceUnavailableError', 'The credentials could not be checked');
      },
    );
  };
  server.on('upgrade', onUpgrade);

  const heartbeat = setInterval(() => {
    for (const [ws, answered] of alive) {
      if (!answered) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, deps.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  heartbeat.unref();

  return {
    count: () => alive.size,
    async close() {
      closing = true;
      clearInterval(heartbeat);
      server.off('upgrade', onUpgrade);
      const open = [...alive.keys()];
      await Promise.all(
        open.map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === ws.CLOSED) return resolve();
              const cut = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
              ws.once('close', () => {
                clearTimeout(cut);
                resolve();
              });
              ws.close(1001, 'server shutting down');
            }),
        ),
      );
      for (const { wss } of endpoints.values()) wss.close();
    },
  };
}
