import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

/** What a test server saw: one entry per request, body fully read. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export type TestHandler = (req: ReceivedRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  port: number;
  /** PEM of the self-signed certificate (https only): pass it as the client's `ca`. */
  ca: string;
  received: ReceivedRequest[];
  /** Replace the handler between steps of a test. */
  handle(handler: TestHandler): void;
  close(): Promise<void>;
}

let certPromise: Promise<{ key: string; cert: string }> | undefined;

/** One EC certificate per test process, for localhost, 127.0.0.1, ::1 and *.test names. */
export function testCertificate(): Promise<{ key: string; cert: string }> {
  certPromise ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 2, value: 'pinned.test' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  }).then((pems) => ({ key: pems.private, cert: pems.cert }));
  return certPromise;
}

const ok: TestHandler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
};

async function listen(server: Server, scheme: 'http' | 'https', ca: string, state: { handler: TestHandler }, received: ReceivedRequest[]): Promise<TestServer> {
  // Node closes an idle keep-alive socket after 5 s; on a loaded machine a client may send on it
  // just as it closes (ECONNRESET). A test server keeps its sockets for the whole test instead.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${scheme}://localhost:${port}`,
    port,
    ca,
    received,
    handle: (handler) => {
      state.handler = handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function requestListener(state: { handler: TestHandler }, received: ReceivedRequest[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(entry);
      Promise.resolve(state.handler(entry, res)).catch(() => res.destroy());
    });
  };
}

/** A loopback HTTPS server with a self-signed certificate (valid for localhost and pinned.test). */
export async function startTlsServer(handler: TestHandler = ok): Promise<TestServer> {
  const { key, cert } = await testCertificate();
  const state = { handler };
  const received: ReceivedRequest[] = [];
  const server = createHttpsServer({ key, cert }, requestListener(state, received));
  return listen(server, 'https', cert, state, received);
}

/** The same as a plain HTTP server. */
export async function startHttpServer(handler: TestHandler = ok): Promise<TestServer> {
  const state = { handler };
  const received: ReceivedRequest[] = [];
  const server = createHttpServer(requestListener(state, received));
  return listen(server, 'http', '', state, received);
}
