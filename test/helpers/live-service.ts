/**
 * The real service listening on a loopback port in this process, for clients that need a
 * socket (a browser, a WebRTC peer, a WebSocket): `startServer` of src/server.ts with the
 * default modules and the local compute backend, on a temp data directory, the tone voice as
 * its voices, and a user with an API key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { issueKey } from '../../src/users/accounts.ts';
import { randomId } from '../../src/clock.ts';
import { createLogger } from '../../src/log.ts';
import type { Permission } from '../../src/users/permissions.ts';
import type { ServiceOptions } from '../../src/services.ts';
import { userDeps } from './harness.ts';
import { freePort } from './remote.ts';
import { toneCatalogue } from './tone-voice.ts';

export interface LiveService {
  /** `http://127.0.0.1:<port>` */
  base: string;
  running: RunningServer;
  /** An API key of a user with the given credits and permissions. */
  key: string;
  userId: string;
  logs: string[];
  /** One call with the key (JSON in, JSON out). */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startLiveService(opts: { env?: Record<string, string>; options?: ServiceOptions; credits?: number; permissions?: Permission[] } = {}): Promise<LiveService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mimic-live-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    MIMIC_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    MIMIC_PUBLIC_URL: base,
    MIMIC_LOG_REQUESTS: 'false',
    MIMIC_JOB_POLL_MS: '20',
    MIMIC_RATE_LIMIT: '1000000',
    // Most of these services never open a stream: no render process and face models loaded for nothing (a test may turn it on).
    MIMIC_STREAM_PREWARM: 'false',
    ...opts.env,
  });
  const logs: string[] = [];
  const running = await startServer(config, { voices: toneCatalogue('local').catalogue, log: createLogger((l) => logs.push(l)), ...opts.options });
  const users = userDeps(running.services);
  const { row, apiKey } = issueKey(users);
  const userId = randomId('usr');
  await users.users.create({ id: userId, name: 'browser-e2e', credits: opts.credits ?? 1000, permissions: opts.permissions ?? [], createdAt: row.createdAt }, row);
  return {
    base,
    running,
    key: apiKey,
    userId,
    logs,
    async api(method, path, body) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Basic ${apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, body: parsed };
    },
    async close() {
      await running.shutdown();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
