/**
 * The yardstick of bench/http.ts: a bare Hono app on the same adapter (@hono/node-server)
 * and versions as mimic, in its own process. `GET /` answers a small JSON body.
 *
 *   node --import tsx bench/http-bare.ts
 *
 * Prints one JSON line `{"port":N}` once listening on 127.0.0.1; stops on SIGTERM.
 */
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

const app = new Hono();
app.get('/', (c) => c.json({ status: 'ok' }));

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.stdout.write(JSON.stringify({ port: info.port }) + '\n');
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
