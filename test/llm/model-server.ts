import { afterAll, beforeAll } from 'vitest';
import { createGuardedClient, type GuardedClient } from '../../src/egress/client.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';

/** A loopback HTTPS model server and a guarded client allowed to reach it, for the enclosing suite. */
export function loopbackModelServer(): { server: TestServer; client: GuardedClient } {
  const world = {} as { server: TestServer; client: GuardedClient };
  beforeAll(async () => {
    world.server = await startTlsServer();
    world.client = createGuardedClient({ allow: ['localhost'], ca: [world.server.ca], defaultTimeoutMs: 5000, defaultMaxBytes: 1024 * 1024 });
  });
  afterAll(async () => {
    await world.client.close();
    await world.server.close();
  });
  return world;
}
