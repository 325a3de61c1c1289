/**
 * The worker's connection to its service: the server URL it was started against, the guarded
 * client that may reach only that host, and the token-authenticated JSON calls of the protocol.
 */
import { isIP } from 'node:net';
import { createGuardedClient, type GuardedClient } from '../../../egress/client.ts';

export const WORKER_VERSION = '0.1.0';
export const MiB = 1024 * 1024;
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The service refused the worker's token (401): nothing a retry can fix. */
export class WorkerAuthError extends Error {}

/**
 * The server's base URL. http is accepted for loopback only: anywhere else the token would
 * cross the network in clear text.
 */
export function parseServerUrl(raw: string): { url: URL; base: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`--server must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('--server must be an https URL');
  if (url.username || url.password || url.search || url.hash) throw new Error('--server must not carry credentials, a query or a fragment');
  const loopback = LOOPBACK_NAMES.has(url.hostname) || (isIP(url.hostname) === 4 && url.hostname.startsWith('127.'));
  if (url.protocol === 'http:' && !loopback) throw new Error('--server must be https (plain http is accepted for loopback addresses only)');
  return { url, base: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/** The guarded client of a worker: the server's host is the one private address it may reach (its operator named it). */
export function workerClient(server: URL): GuardedClient {
  return createGuardedClient({ allow: [server.hostname.replace(/^\[|\]$/g, '')], defaultTimeoutMs: 30_000, defaultMaxBytes: 4 * MiB, userAgent: `mimic-worker/${WORKER_VERSION}` });
}

export interface ServiceClient {
  client: GuardedClient;
  server: URL;
  /** POST a protocol call with the worker token; 401 throws WorkerAuthError. */
  call(path: string, body: unknown, timeoutMs?: number): Promise<{ status: number; json: any }>;
  /** Every URL of a task must point at the server this worker was started against. */
  sameOrigin(url: string): void;
}

export function serviceClient(opts: { server: string; token: string; client?: GuardedClient }): ServiceClient {
  const { url: server, base } = parseServerUrl(opts.server);
  const client = opts.client ?? workerClient(server);
  return {
    client,
    server,
    async call(path, body, timeoutMs = 30_000) {
      const res = await client.request(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        timeoutMs,
        maxBytes: MiB,
      });
      if (res.status === 401) throw new WorkerAuthError('the service refused the worker token (401): it is wrong or was revoked');
      let json: unknown = null;
      try {
        json = res.body.length ? JSON.parse(res.body.toString('utf8')) : null;
      } catch {
        /* not JSON */
      }
      return { status: res.status, json };
    },
    sameOrigin(url) {
      let origin = '';
      try {
        origin = new URL(url).origin;
      } catch {
        /* refused below */
      }
      if (origin !== server.origin) throw new Error(`the task names a URL outside ${server.origin}; refusing it (is --server the service's MIMIC_PUBLIC_URL?)`);
    },
  };
}
