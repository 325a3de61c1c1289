import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgDatabase } from '../../src/db/pg/database.ts';
import { createLogger } from '../../src/log.ts';
import { createPgSecretStore } from '../../src/secrets/store-pg.ts';
import { createPgToolStore } from '../../src/tools/store-pg.ts';
import { callTool, type ToolCallDeps } from '../../src/tools/call.ts';
import { createTool, replaceTool } from '../../src/tools/service.ts';
import { createGuardedClient, type GuardedClient } from '../../src/egress/client.ts';
import { randomId } from '../../src/clock.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { echo, toolBody } from '../helpers/tools.ts';
import { rejectionOf } from '../helpers/rejection.ts';
import { ApiError } from '../../src/errors.ts';
import { clusterFor, plainVault, processesOn, seedOwner, type Processes } from './processes.ts';

/**
 * A tool replaced through one process is what another process calls next: the definition is
 * read from the database at every call (src/tools/call.ts compiles it once per stored text),
 * so no process answers from a definition it remembers.
 */
const admin = clusterFor('test/scale/tool-definitions.test.ts');

describe.skipIf(!admin)('tool definitions across processes (PostgreSQL)', () => {
  let db: Processes;
  let upstream: TestServer;
  let client: GuardedClient;

  const depsOf = (h: PgDatabase): ToolCallDeps => ({
    toolStore: createPgToolStore(h),
    secretStore: createPgSecretStore(h),
    vault: plainVault,
    clock: { now: () => Date.now() },
    newId: randomId,
    client,
    refresher: { accessTokenFor: () => Promise.reject(new Error('no oauth2 here')), refreshAfterRejection: () => Promise.reject(new Error('no oauth2 here')) },
    log: createLogger(() => {}),
    limits: { timeoutMs: 10_000, maxResponseBytes: 1024 * 1024 },
  });

  beforeAll(async () => {
    upstream = await startTlsServer(echo);
    client = createGuardedClient({ allow: ['localhost', '127.0.0.1'], ca: [upstream.ca], defaultTimeoutMs: 10_000, defaultMaxBytes: 1024 * 1024 });
    db = await processesOn(admin!);
  });
  afterAll(async () => {
    await db?.close();
    await client?.close();
    await upstream?.close();
  });

  it('the other process’s next call uses the replaced definition: its URL and its parameters', async () => {
    const [a, b] = await Promise.all([db.open(), db.open()]);
    await seedOwner(a, 'usr_tools');
    const [viaA, viaB] = [depsOf(a), depsOf(b)];
    const tool = await createTool(viaA, 'usr_tools', toolBody(`${upstream.url}/v1/weather`));
    const pathOf = async (input: unknown) => ((await callTool(viaB, 'usr_tools', tool.id, { input })).output.body as { path: string }).path;
    expect(await pathOf({ city: 'Paris' })).toMatch(/^\/v1\/weather/);

    for (let version = 2; version <= 5; version++) {
      const body = toolBody(`${upstream.url}/v${version}/weather`);
      // Each version asks for one more property, so a stale validator in B would let the call through.
      const required = ['city', ...(version % 2 === 0 ? ['units'] : ['days'])];
      await replaceTool(viaA, 'usr_tools', tool.id, { ...body, schema: { parameters: { ...body.schema.parameters, required } } });
      const refused = await rejectionOf(callTool(viaB, 'usr_tools', tool.id, { input: { city: 'Paris' } }), ApiError);
      expect(refused).toMatchObject({ kind: 'ValidationError' });
      const input = version % 2 === 0 ? { city: 'Paris', units: 'metric' } : { city: 'Paris', days: 2 };
      expect(await pathOf(input)).toMatch(new RegExp(`^/v${version}/weather`));
    }
  });
});
