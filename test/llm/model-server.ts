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

/** One OpenAI chat-completions stream chunk. */
export const chunk = (delta: object, finish: string | null = null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });

/** Writes server-sent events as a streaming model does; `done` also writes `data: [DONE]` and ends the answer. */
export function writeEvents(res: import('node:http').ServerResponse, events: unknown[], done = true): void {
  if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
  if (done) {
    res.write('data: [DONE]\n\n');
    res.end();
  }
}
