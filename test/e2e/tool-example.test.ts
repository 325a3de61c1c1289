import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createUser } from '../../src/users/accounts.ts';
import { userDeps } from '../helpers/harness.ts';
import { silentLogger } from '../../src/log.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { echo } from '../helpers/tools.ts';
import { ROOT } from '../helpers/cli.ts';
import { sqliteOf } from '../helpers/stores.ts';

/** examples/tool-with-secret.ts, run as a user would, against a real listening service and a loopback upstream. */
let upstream: TestServer;
let running: RunningServer;
let dataDir: string;
let apiKey: string;

beforeAll(async () => {
  upstream = await startTlsServer(echo);
  dataDir = mkdtempSync(join(tmpdir(), 'mimic-example-'));
  const config = loadConfig({ MIMIC_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_WORKER: 'false', MIMIC_LOG_REQUESTS: 'false' });
  running = await startServer(config, { ca: [upstream.ca], log: silentLogger });
  apiKey = (await createUser(userDeps(running.services), { credits: 0, permissions: [] })).apiKey;
});
afterAll(async () => {
  await running.shutdown();
  await upstream.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('examples/tool-with-secret.ts', () => {
  it('stores a secret, calls a tool with it, shows it masked, and cleans up', async () => {
    const token = 'example-token-7Hq2Lx9Vb4';
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/tool-with-secret.ts'], {
      cwd: ROOT,
      env: { ...process.env, MIMIC_URL: `http://127.0.0.1:${running.port}`, MIMIC_API_KEY: apiKey, TOOL_URL: `${upstream.url}/v1/forecast`, TOOL_TOKEN: token },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, out).toBe(0);
    expect(upstream.received.at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
    expect(out).toContain('•••••••••');
    expect(out).not.toContain(token);
    expect(out).toMatch(/secret\.used/);
    const left = sqliteOf(running.services.store).sqlite.prepare('SELECT (SELECT count(*) FROM tools) AS tools, (SELECT count(*) FROM secrets) AS secrets').get();
    expect(left).toEqual({ tools: 0, secrets: 0 });
  });
});
