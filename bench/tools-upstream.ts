/**
 * The upstream API of bench/tools.ts, run as its own process so that its CPU time is not
 * charged to either client. A keep-alive HTTPS server that answers a small JSON body to a
 * request bearing the expected token, and 401 to anything else (so a bench that forgot the
 * credential fails loudly instead of measuring the wrong thing).
 *
 *   UPSTREAM_KEY_FILE=key.pem UPSTREAM_CERT_FILE=cert.pem UPSTREAM_TOKEN=... node --import tsx bench/tools-upstream.ts
 *
 * Prints one JSON line `{"port":N}` once listening on 127.0.0.1; stops on SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const expected = `Bearer ${required('UPSTREAM_TOKEN')}`;
const ok = Buffer.from(JSON.stringify({ city: 'Oslo', temp: 3 }));
const denied = Buffer.from(JSON.stringify({ error: 'unauthorized' }));

const server = createServer(
  { key: readFileSync(required('UPSTREAM_KEY_FILE')), cert: readFileSync(required('UPSTREAM_CERT_FILE')), keepAlive: true },
  (req, res) => {
    const body = req.headers.authorization === expected ? ok : denied;
    res.writeHead(body === ok ? 200 : 401, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  },
);
// Longer than any pause in the bench, so connections stay warm between rounds.
server.keepAliveTimeout = 120_000;
server.headersTimeout = 121_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
