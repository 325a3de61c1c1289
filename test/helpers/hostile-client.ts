/**
 * The client side of test/http/hostile-openapi.test.ts: the service in its own process
 * (hostile-server.ts), one keep-alive connection that every hostile request reuses, and a
 * /health probe on a connection of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { Client, request } from 'undici';
import { ROOT } from './cli.ts';

/**
 * A request unanswered this long counts as lost. Not a timing assertion: every request of the
 * suite is answered in milliseconds; this only tells a hang (a stalled event loop, a request
 * the server never reads to the end) from an answer, on however loaded a machine.
 */
export const ANSWER_DEADLINE_MS = 45_000;

export interface HostileService {
  base: string;
  key: string;
  ids: Record<'secret' | 'tool' | 'agent' | 'chat' | 'consent' | 'presenter', string>;
  /** Body limits in bytes: `json` for every JSON route, and the upload routes' own. */
  limits: Record<string, number>;
  /** Why the service refused a tool schema with `uniqueItems` on untyped items, if it did. */
  uniqueItemsRefused?: string;
  /** The server's stderr (its log lines), last 200 lines. */
  stderr: string[];
  /** Set when the process ended (a crash, if the suite did not stop it). */
  exited(): string | undefined;
  stop(): Promise<void>;
}

export async function startHostileService(): Promise<HostileService> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/hostile-server.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  let exit: string | undefined;
  child.on('exit', (code, signal) => (exit = `exited with ${signal ?? code}`));
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr.push(line);
    if (stderr.length > 200) stderr.shift();
  });
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', () => reject(new Error(`the service did not start (${exit}):\n${stderr.join('\n')}`)));
  });
  const info = JSON.parse(first) as Pick<HostileService, 'base' | 'key' | 'ids' | 'limits' | 'uniqueItemsRefused'>;
  return {
    ...info,
    stderr,
    exited: () => exit,
    async stop() {
      if (exit) return;
      const done = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      // A service whose event loop a hostile body stalled cannot shut down: it is killed.
      const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await done;
      clearTimeout(kill);
    },
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export interface Outbound {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** `length`: a Content-Length body; `chunked`: Transfer-Encoding: chunked, in `chunk`-byte pieces. */
  transfer?: 'length' | 'chunked';
  chunk?: number;
}

/** The size of a chunked body's pieces: at most 4096 pieces (a megabyte in 1-byte pieces would take seconds to send). */
export const pieceSize = (length: number, chunk: number): number => Math.max(chunk, Math.ceil(length / 4096));

export interface Connection {
  send(out: Outbound): Promise<Answer>;
  /** Connections undici saw end, with undici's reason (UND_ERR_INFO reset: undici closed it itself). */
  disconnects: { reason: string; at: number }[];
  connects: number;
  close(): Promise<void>;
}

/**
 * One keep-alive connection (an undici Client, pipelining 1): requests reuse it one after
 * another, and it reconnects after the server closes it. (An undici Agent would not do here:
 * after a server-side close it counts the old client's late disconnect events against the new
 * client and closes that one too, so every later request would look dropped.)
 */
export function connection(base: string): Connection {
  const agent = new Client(base, {
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 30_000,
    headersTimeout: ANSWER_DEADLINE_MS,
    bodyTimeout: ANSWER_DEADLINE_MS,
  });
  const disconnects: Connection['disconnects'] = [];
  const self: Connection = {
    disconnects,
    connects: 0,
    async send({ method, path, headers = {}, body, transfer = 'length', chunk = 16 * 1024 }) {
      const payload =
        body === undefined
          ? undefined
          : transfer === 'length'
            ? body
            : Readable.from((function* () {
                const size = pieceSize(body.length, chunk);
                for (let at = 0; at < body.length; at += size) yield body.subarray(at, at + size);
              })(), { objectMode: false });
      const res = await request(`${base}${path}`, {
        method: method as 'GET',
        headers,
        body: payload,
        dispatcher: agent,
        // undici closes a connection after a GET or DELETE that carried a body unless told not to.
        reset: false,
        // headersTimeout starts only once the body is sent: a server that stops reading would stall it.
        signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
      });
      const text = await res.body.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.statusCode, headers: res.headers, text, json };
    },
    close: () => agent.close(),
  };
  agent.on('connect', () => self.connects++);
  agent.on('disconnect', (_origin, _targets, err) => disconnects.push({ reason: `${(err as { code?: string })?.code ?? ''} ${err?.message ?? ''}`.trim(), at: Date.now() }));
  return self;
}

export interface HealthProbe {
  /** Every failed /health request (an error or an answer other than 200 {status: "ok"}). */
  failures: string[];
  maxMs: number;
  count: number;
  /** A window: failures and latency from now on. */
  reset(): void;
  stop(): Promise<void>;
}

/** Asks for /health every `everyMs` on its own connection until stopped. */
export function healthProbe(base: string, everyMs = 100): HealthProbe {
  const conn = connection(base);
  let running = true;
  const probe: HealthProbe = {
    failures: [],
    maxMs: 0,
    count: 0,
    reset() {
      probe.failures = [];
      probe.maxMs = 0;
      probe.count = 0;
    },
    async stop() {
      running = false;
      await loop;
      await conn.close();
    },
  };
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await conn.send({ method: 'GET', path: '/health' });
        if (res.status !== 200 || res.json?.status !== 'ok') probe.failures.push(`/health answered ${res.status} ${res.text.slice(0, 200)}`);
      } catch (err) {
        probe.failures.push(`/health failed: ${(err as Error).name} ${(err as { code?: unknown }).code ?? ''} ${(err as Error).message}`);
      }
      probe.maxMs = Math.max(probe.maxMs, performance.now() - started);
      probe.count++;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return probe;
}
