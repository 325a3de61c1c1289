import { lookup as dnsLookup } from 'node:dns/promises';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import { EgressError } from './errors.ts';
import { createEgressPolicy, parseEgressUrl, type EgressPolicy, type EgressTarget } from './policy.ts';

/**
 * The one outbound HTTP client of the service. Every request:
 *  - is vetted by the egress policy (scheme, no user info, allowed addresses);
 *  - resolves DNS once per connection, checks every address, and connects to a checked
 *    address only (the check runs inside the connection's `lookup`, so DNS rebinding has
 *    no window between check and connect); TLS SNI and Host stay the URL's host name;
 *  - never follows redirects (a 3xx comes back as-is) and ignores proxy variables;
 *  - has a deadline covering headers and body, and a response size cap enforced while streaming.
 */

export type Resolver = (host: string) => Promise<string[]>;

export interface GuardedClientOptions {
  allow: readonly string[];
  /** Extra trusted root certificates (PEM), added to Node's roots and NODE_EXTRA_CA_CERTS. */
  ca?: string[];
  defaultTimeoutMs: number;
  defaultMaxBytes: number;
  userAgent?: string;
  /** Replaces DNS (all addresses of a host); tests map fake names with it. */
  resolve?: Resolver;
}

export interface RequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  maxBytes?: number;
  /** Keep the first `maxBytes` of a larger body instead of failing with `too_large`. */
  truncate?: boolean;
}

export interface GuardedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface DownloadOptions {
  maxBytes: number;
  timeoutMs?: number;
  /** Decides from the response's Content-Type (lowercase, without parameters). */
  accept: (contentType: string) => boolean;
}

export interface UploadOptions {
  contentType: string;
  method?: 'PUT' | 'POST';
  timeoutMs?: number;
}

/** A request whose 2xx body is handed over piece by piece as it arrives (server-sent events, a model's tokens). */
export interface StreamInit extends Omit<RequestInit, 'truncate'> {
  /** Each piece of a 2xx body, in order; return false to stop reading (the connection is dropped). */
  onChunk(chunk: Buffer): boolean | void;
  /** The caller's own cancellation (a barge-in, a client gone): the request stops, as a `cancelled` EgressError. */
  signal?: AbortSignal;
  /** Longest wait for the next piece of the body, in ms (default: no limit beyond `timeoutMs`). */
  idleTimeoutMs?: number;
}

export interface GuardedClient {
  /**
   * What the policy says of `url` now, without sending anything: its shape, an address
   * literal, and every address its host resolves to (an allowed host name is not resolved).
   * Throws the EgressError a request would meet (`dns` when the name does not resolve).
   */
  check(url: string): Promise<void>;
  request(url: string, init?: RequestInit): Promise<GuardedResponse>;
  /**
   * Like `request`, but a 2xx body goes to `init.onChunk` as it arrives and the answer's
   * `body` is empty; any other status's body is read whole (capped), as `request` does.
   * `maxBytes` caps the whole streamed body; `timeoutMs` is the deadline of the whole exchange.
   */
  stream(url: string, init: StreamInit): Promise<GuardedResponse>;
  download(url: string, destPath: string, opts: DownloadOptions): Promise<{ contentType: string; bytes: number }>;
  upload(url: string, filePath: string, opts: UploadOptions): Promise<{ status: number; headers: Record<string, string> }>;
  close(): Promise<void>;
}

const DEFAULT_USER_AGENT = 'mimic/0.1';
const UPLOAD_REPLY_BYTES = 64 * 1024;

const defaultResolve: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

function extraCaFromEnv(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file) return [];
  try {
    return [readFileSync(file, 'utf8')];
  } catch {
    return [];
  }
}

/** Resolves `host` and checks every answer against the policy: the addresses a connection may use. */
async function checkedAddresses(policy: EgressPolicy, resolve: Resolver, host: string): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new EgressError('dns', `host ${host} could not be resolved`);
  }
  if (addresses.length === 0) throw new EgressError('dns', `host ${host} has no addresses`);
  for (const address of addresses) {
    const why = policy.refusal(host, address);
    if (why) throw new EgressError('refused_address', `host ${host} resolves to a ${why} address, which is not allowed`);
  }
  return addresses;
}

/** The connection-time half of the guard: resolve once, check all, hand back checked addresses. */
function guardedLookup(policy: EgressPolicy, resolve: Resolver) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    checkedAddresses(policy, resolve, host).then(
      (addresses) => {
        const checked = addresses.map((address) => ({ address, family: isIP(address) || 4 }));
        if (options.all) return callback(null, checked);
        const first = checked[0]!;
        callback(null, first.address, first.family);
      },
      (err: EgressError) => callback(err, ''),
    );
  };
}

const TLS_CODES = /CERT|SSL|TLS|UNABLE_TO_(VERIFY|GET)|SELF_SIGNED|HOSTNAME_MISMATCH/;

function toEgressError(err: unknown, host: string, timedOut: boolean): EgressError {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof EgressError) return e;
  }
  if (timedOut) return new EgressError('timeout', `request to host ${host} timed out`);
  const code = String((err as { code?: unknown })?.code ?? (err as { cause?: { code?: unknown } })?.cause?.code ?? '');
  if (/TIMEOUT/.test(code)) return new EgressError('timeout', `request to host ${host} timed out`);
  if (TLS_CODES.test(code)) return new EgressError('tls', `TLS with host ${host} failed (${code})`);
  if (/^(ENOTFOUND|EAI_)/.test(code)) return new EgressError('dns', `host ${host} could not be resolved`);
  return new EgressError('network', `request to host ${host} failed${code ? ` (${code})` : ''}`);
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Drops a body we will not read; undici reports the destroy as an error event, which nobody wants. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * Reads a body in flowing mode, handing each chunk to `onChunk` as it arrives, so undici's
 * HTTP/1 parser is never paused by backpressure. undici 7 crashes the whole process with an
 * uncatchable assertion when a peer closes the connection while the parser is paused
 * (nodejs/undici#5360; fixed in undici 8 only, which needs Node 22), so a hostile server
 * could otherwise kill the service by sending a body and closing. Memory stays bounded
 * because every caller stops at its byte cap: `onChunk` returns false to stop reading (the
 * body is then dropped) or throws to fail.
 */
function consume(body: Dispatcher.ResponseData['body'], onChunk: (chunk: Buffer) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = (after: () => void) => {
      body.off('data', onData);
      discard(body);
      after();
    };
    const onData = (chunk: Buffer) => {
      try {
        if (!onChunk(chunk)) stop(resolve);
      } catch (err) {
        stop(() => reject(err));
      }
    };
    body.on('data', onData);
    body.once('end', resolve);
    body.once('error', reject);
  });
}

const tooLarge = (host: string, max: number) => new EgressError('too_large', `response from host ${host} exceeds ${max} bytes`);

async function readCapped(body: Dispatcher.ResponseData['body'], max: number, truncate: boolean, host: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  await consume(body, (buf) => {
    if (total + buf.length <= max) {
      chunks.push(buf);
      total += buf.length;
      return true;
    }
    if (!truncate) throw tooLarge(host, max);
    chunks.push(buf.subarray(0, max - total));
    total = max;
    return false;
  });
  return Buffer.concat(chunks, total);
}

/** Streams a body to a file without ever pausing the parser (see `consume`); fails past `max` bytes. */
async function writeCapped(body: Dispatcher.ResponseData['body'], path: string, max: number, host: string): Promise<number> {
  const file = createWriteStream(path);
  const failed = new Promise<never>((_, reject) => file.once('error', reject));
  failed.catch(() => undefined);
  let bytes = 0;
  try {
    await Promise.race([
      consume(body, (buf) => {
        bytes += buf.length;
        if (bytes > max) throw tooLarge(host, max);
        // The write stream buffers what the disk has not taken yet: at most `max` bytes.
        file.write(buf);
        return true;
      }),
      failed,
    ]);
    await Promise.race([new Promise<void>((resolve) => file.end(resolve)), failed]);
    return bytes;
  } finally {
    // The file opens asynchronously: wait until it is closed, or the caller's unlink of a
    // partial file can run before the open and leave the file behind (seen under load).
    if (!file.closed) {
      const closed = new Promise<void>((resolve) => file.once('close', () => resolve()));
      file.destroy();
      await closed;
    }
  }
}

export function createGuardedClient(opts: GuardedClientOptions): GuardedClient {
  const policy = createEgressPolicy(opts.allow);
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  const ca = opts.ca?.length ? [...rootCertificates, ...extraCaFromEnv(), ...opts.ca] : undefined;
  const agent = new Agent({
    connect: { lookup: guardedLookup(policy, opts.resolve ?? defaultResolve) as never, ...(ca ? { ca } : {}) },
    // Our own deadline (an AbortSignal) governs; these only stop undici's 300 s defaults mattering.
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  /** The request-time half of the guard: URL shape, and address literals (no lookup happens for them). */
  function vet(raw: string): EgressTarget {
    const target = parseEgressUrl(raw);
    if (target.literal) {
      const why = policy.refusal(target.literal, target.literal);
      if (why) throw new EgressError('refused_address', `host ${target.host} is a ${why} address, which is not allowed`);
    }
    return target;
  }

  /** Runs `fn` under a deadline; maps every failure to an EgressError naming the host only. */
  async function withDeadline<T>(target: EgressTarget, timeoutMs: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      return await fn(controller.signal);
    } catch (err) {
      throw toEgressError(err, target.host, timedOut);
    } finally {
      clearTimeout(timer);
    }
  }

  function dispatch(
    target: EgressTarget,
    signal: AbortSignal,
    method: string,
    headers: Record<string, string>,
    body?: Dispatcher.DispatchOptions['body'],
  ): Promise<Dispatcher.ResponseData> {
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    return agent.request({
      origin: target.url.origin,
      path: target.url.pathname + target.url.search,
      method: method.toUpperCase() as Dispatcher.HttpMethod,
      headers: { 'user-agent': userAgent, ...lower },
      body: body ?? null,
      signal,
    });
  }

  const resolve = opts.resolve ?? defaultResolve;

  return {
    async check(url) {
      const target = vet(url);
      if (target.literal || policy.isHostAllowed(target.host)) return;
      await checkedAddresses(policy, resolve, target.host);
    },

    async request(url, init = {}) {
      const target = vet(url);
      const maxBytes = init.maxBytes ?? opts.defaultMaxBytes;
      return withDeadline(target, init.timeoutMs ?? opts.defaultTimeoutMs, async (signal) => {
        const res = await dispatch(target, signal, init.method ?? 'GET', init.headers ?? {}, init.body);
        const headers = flattenHeaders(res.headers);
        const declared = Number(headers['content-length']);
        if (!init.truncate && Number.isFinite(declared) && declared > maxBytes) {
          discard(res.body);
          throw tooLarge(target.host, maxBytes);
        }
        const body = await readCapped(res.body, maxBytes, init.truncate ?? false, target.host);
        return { status: res.statusCode, headers, body };
      });
    },

    async stream(url, init) {
      const target = vet(url);
      const maxBytes = init.maxBytes ?? opts.defaultMaxBytes;
      if (init.signal?.aborted) throw new EgressError('cancelled', `request to host ${target.host} was cancelled`);
      return withDeadline(target, init.timeoutMs ?? opts.defaultTimeoutMs, async (signal) => {
        // The caller's cancellation and an idle body both end the exchange through the deadline's signal.
        const controller = new AbortController();
        let why: 'cancelled' | 'idle' | undefined;
        const abort = (reason: 'cancelled' | 'idle') => {
          why ??= reason;
          controller.abort();
        };
        const onCancel = () => abort('cancelled');
        const onDeadline = () => controller.abort();
        init.signal?.addEventListener('abort', onCancel, { once: true });
        signal.addEventListener('abort', onDeadline, { once: true });
        let idle: NodeJS.Timeout | undefined;
        const armIdle = () => {
          if (init.idleTimeoutMs === undefined) return;
          clearTimeout(idle);
          idle = setTimeout(() => abort('idle'), init.idleTimeoutMs);
        };
        try {
          armIdle();
          const res = await dispatch(target, controller.signal, init.method ?? 'GET', init.headers ?? {}, init.body);
          const headers = flattenHeaders(res.headers);
          if (res.statusCode < 200 || res.statusCode > 299) {
            const body = await readCapped(res.body, Math.min(maxBytes, UPLOAD_REPLY_BYTES), true, target.host);
            return { status: res.statusCode, headers, body };
          }
          let total = 0;
          await consume(res.body, (chunk) => {
            total += chunk.length;
            if (total > maxBytes) throw tooLarge(target.host, maxBytes);
            armIdle();
            return init.onChunk(chunk) !== false;
          });
          return { status: res.statusCode, headers, body: Buffer.alloc(0) };
        } catch (err) {
          if (why === 'cancelled') throw new EgressError('cancelled', `request to host ${target.host} was cancelled`);
          if (why === 'idle') throw new EgressError('timeout', `host ${target.host} sent nothing for ${init.idleTimeoutMs} ms`);
          throw err;
        } finally {
          clearTimeout(idle);
          init.signal?.removeEventListener('abort', onCancel);
          signal.removeEventListener('abort', onDeadline);
        }
      });
    },

    async download(url, destPath, dl) {
      const target = vet(url);
      try {
        return await withDeadline(target, dl.timeoutMs ?? opts.defaultTimeoutMs, async (signal) => {
          const res = await dispatch(target, signal, 'GET', {});
          const headers = flattenHeaders(res.headers);
          if (res.statusCode < 200 || res.statusCode > 299) {
            discard(res.body);
            throw new EgressError('status', `host ${target.host} answered HTTP ${res.statusCode}`, res.statusCode);
          }
          const contentType = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
          if (!dl.accept(contentType)) {
            discard(res.body);
            throw new EgressError('content_type', `host ${target.host} sent content type "${contentType.slice(0, 100)}", which is not accepted`);
          }
          const declared = Number(headers['content-length']);
          if (Number.isFinite(declared) && declared > dl.maxBytes) {
            discard(res.body);
            throw tooLarge(target.host, dl.maxBytes);
          }
          const bytes = await writeCapped(res.body, destPath, dl.maxBytes, target.host);
          return { contentType, bytes };
        });
      } catch (err) {
        await unlink(destPath).catch(() => undefined);
        throw err;
      }
    },

    async upload(url, filePath, up) {
      const target = vet(url);
      const size = (await stat(filePath)).size;
      return withDeadline(target, up.timeoutMs ?? opts.defaultTimeoutMs, async (signal) => {
        const res = await dispatch(
          target,
          signal,
          up.method ?? 'PUT',
          { 'content-type': up.contentType, 'content-length': String(size) },
          createReadStream(filePath),
        );
        const headers = flattenHeaders(res.headers);
        await readCapped(res.body, UPLOAD_REPLY_BYTES, true, target.host);
        if (res.statusCode < 200 || res.statusCode > 299) {
          throw new EgressError('status', `host ${target.host} answered HTTP ${res.statusCode} to the upload`, res.statusCode);
        }
        return { status: res.statusCode, headers };
      });
    },

    close: () => agent.close(),
  };
}
