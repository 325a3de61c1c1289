import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { isIP } from 'node:net';

/**
 * The client's address: the socket's, or, when the socket is a trusted proxy
 * (MIMIC_TRUSTED_PROXIES), the right-most X-Forwarded-For entry that is not one (entries
 * left of it are the client's to write). 'unknown' in process (no socket: tests' app.request).
 * IPv6 callers group by /64 themselves.
 */
export function clientAddress(c: Context, trustedProxies: readonly string[]): string {
  let socket: string | undefined;
  try {
    socket = getConnInfo(c).remote.address;
  } catch {
    socket = undefined;
  }
  if (!socket) return 'unknown';
  const trusted = (a: string) => trustedProxies.includes(a) || trustedProxies.includes(a.replace(/^::ffff:/i, ''));
  if (!trusted(socket)) return socket;
  const hops = (c.req.header('x-forwarded-for') ?? '').split(',').map((s) => s.trim()).filter((s) => isIP(s) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) if (!trusted(hops[i]!)) return hops[i]!;
  return hops[0] ?? socket;
}
