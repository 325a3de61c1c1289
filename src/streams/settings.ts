import { ConfigurationError, bool, int } from '../config.ts';
import type { ConfigSection } from '../platform/module.ts';
import { parseIceAllow, type IcePolicy } from './ice-policy.ts';

/** One entry of `MIMIC_ICE_SERVERS`, handed to the server's peer and to the client as `ice_servers`. */
export interface IceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

export interface StreamSettings {
  iceServers: IceServer[];
  /** Only this local IPv4 address gathers ICE candidates (`MIMIC_STREAM_ICE_ADDRESS`); absent: every interface. */
  iceAddress?: string;
  /** Which addresses of the clients' candidates mimic may send to (`MIMIC_ICE_ALLOW`; SECURITY.md, "ICE policy"). */
  icePolicy: IcePolicy;
  perUser: number;
  total: number;
  /** Open streams through one client key, all its end users together (`MIMIC_CLIENT_KEY_STREAMS`). */
  perClientKey: number;
  /** Open streams of one end user of a client key (`MIMIC_CLIENT_KEY_STREAMS_PER_END_USER`). */
  perEndUser: number;
  /** Longest wait for the server's own candidates before the offer is answered. */
  gatherTimeoutMs: number;
  /** Warm the stream renderer (render process, face models) when the server starts (`MIMIC_STREAM_PREWARM`). */
  prewarm: boolean;
  /** This process's base URL as the other API processes reach it (`MIMIC_INTERNAL_URL`): a stream's requests are forwarded there. Absent: this process's HOST and PORT (module.ts). */
  internalUrl?: string;
  /** How often this process renews its streams' records (`MIMIC_STREAM_HEARTBEAT_MS`). */
  heartbeatMs: number;
  /** A stream whose record has not been renewed for this long has lost its process: it ends (`MIMIC_STREAM_STALE_MS`). */
  staleMs: number;
}

const ICE_URL = /^(?:stun|stuns|turn|turns):[^\s]+$/;

/** `MIMIC_ICE_SERVERS`: a JSON list of `{urls, username?, credential?}`. The error never repeats a value (it may hold a TURN credential). */
export function parseIceServers(raw: string | undefined): IceServer[] {
  if (raw === undefined || raw.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigurationError('MIMIC_ICE_SERVERS must be a JSON list of {urls, username?, credential?}: it is not valid JSON');
  }
  if (!Array.isArray(value)) throw new ConfigurationError('MIMIC_ICE_SERVERS must be a JSON list of {urls, username?, credential?}');
  return value.map((entry: unknown, i) => {
    const where = `MIMIC_ICE_SERVERS[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new ConfigurationError(`${where} must be an object {urls, username?, credential?}`);
    const { urls, username, credential, ...rest } = entry as Record<string, unknown>;
    if (Object.keys(rest).length) throw new ConfigurationError(`${where} has unknown fields: ${Object.keys(rest).join(', ')}`);
    const list = typeof urls === 'string' ? [urls] : urls;
    if (!Array.isArray(list) || list.length === 0 || !list.every((u) => typeof u === 'string' && ICE_URL.test(u))) {
      throw new ConfigurationError(`${where}.urls must be a stun:, stuns:, turn: or turns: URL, or a non-empty list of them`);
    }
    if (username !== undefined && typeof username !== 'string') throw new ConfigurationError(`${where}.username must be a string`);
    if (credential !== undefined && typeof credential !== 'string') throw new ConfigurationError(`${where}.credential must be a string`);
    const turn = list.some((u: string) => u.startsWith('turn'));
    if (turn && (username === undefined || credential === undefined)) throw new ConfigurationError(`${where}: a TURN server needs username and credential`);
    return { urls: urls as string | string[], ...(username !== undefined ? { username } : {}), ...(credential !== undefined ? { credential } : {}) };
  });
}

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/** The streams module's section of the configuration (docs/streams.md, "Limits" and "ICE servers"). */
export const streamSettings: ConfigSection<StreamSettings> = {
  variables: [
    { name: 'MIMIC_ICE_SERVERS', default: '[]', description: 'JSON list of ICE servers [{urls, username?, credential?}] for the server and the clients (STUN/TURN, e.g. a coturn beside mimic); credentials are never logged' },
    { name: 'MIMIC_STREAM_ICE_ADDRESS', default: '', description: 'the one local IPv4 address WebRTC candidates are gathered on (e.g. 127.0.0.1 or the public interface); empty: every interface' },
    { name: 'MIMIC_ICE_ALLOW', default: '', description: 'comma list of private, loopback, CIDRs or addresses the clients\' ICE candidates may also have (default: public addresses only; link-local and other special ranges never; behind NAT use TURN)' },
    { name: 'MIMIC_STREAMS_PER_USER', default: '3', description: 'open live streams one user may have at once (1 to 100)' },
    { name: 'MIMIC_CLIENT_KEY_STREAMS', default: '10', description: 'open live streams through one client key (a page that embeds an agent), all its end users together (1 to 1000); they do not count against MIMIC_STREAMS_PER_USER of the key\'s owner' },
    { name: 'MIMIC_CLIENT_KEY_STREAMS_PER_END_USER', default: '2', description: 'open live streams of one end user (the externalId) of a client key (1 to 100)' },
    { name: 'MIMIC_STREAMS_MAX', default: '20', description: 'open live streams of this API process, all users together (1 to 1000)' },
    { name: 'MIMIC_STREAM_PREWARM', default: 'true', description: 'start the stream render process and load its face models when the server starts, so the first stream opens in well under a second instead of 1-2 s (costs about 200 MB of memory while no stream is open); false: they start with the first stream' },
    { name: 'MIMIC_INTERNAL_URL', default: '', description: 'this API process\'s base URL as the other API processes of the deployment reach it (http://<private address>:<port>); a live stream\'s requests that reach another process are forwarded here (docs/streams-across-processes.md); empty: http://<HOST>:<PORT> (127.0.0.1 when HOST listens on every interface)' },
    { name: 'MIMIC_STREAM_HEARTBEAT_MS', default: '1000', description: 'how often an API process renews the records of the live streams it holds (100 to 10000)' },
    { name: 'MIMIC_STREAM_STALE_MS', default: '5000', description: 'a live stream whose process has not renewed its record for this long is ended (its process died) and its place freed (at least 3 heartbeats; up to 60000)' },
    { name: 'MIMIC_STREAM_GATHER_MS', default: '1500', description: 'longest wait for the server\'s ICE candidates when a stream is created (100 to 10000)' },
  ],
  load(env) {
    const address = env.MIMIC_STREAM_ICE_ADDRESS?.trim();
    if (address && !IPV4.test(address)) throw new ConfigurationError(`MIMIC_STREAM_ICE_ADDRESS must be an IPv4 address, got "${address}"`);
    const heartbeatMs = int(env, 'MIMIC_STREAM_HEARTBEAT_MS', 1000, 100, 10_000);
    const staleMs = int(env, 'MIMIC_STREAM_STALE_MS', 5000, 300, 60_000);
    if (staleMs < 3 * heartbeatMs) throw new ConfigurationError(`MIMIC_STREAM_STALE_MS (${staleMs}) must be at least 3 heartbeats (MIMIC_STREAM_HEARTBEAT_MS ${heartbeatMs}): else a busy process loses its streams`);
    return {
      iceServers: parseIceServers(env.MIMIC_ICE_SERVERS),
      ...(address ? { iceAddress: address } : {}),
      icePolicy: parseIceAllow(env.MIMIC_ICE_ALLOW),
      perUser: int(env, 'MIMIC_STREAMS_PER_USER', 3, 1, 100),
      total: int(env, 'MIMIC_STREAMS_MAX', 20, 1, 1000),
      perClientKey: int(env, 'MIMIC_CLIENT_KEY_STREAMS', 10, 1, 1000),
      perEndUser: int(env, 'MIMIC_CLIENT_KEY_STREAMS_PER_END_USER', 2, 1, 100),
      gatherTimeoutMs: int(env, 'MIMIC_STREAM_GATHER_MS', 1500, 100, 10_000),
      prewarm: bool(env, 'MIMIC_STREAM_PREWARM', true),
      ...internalUrl(env),
      heartbeatMs,
      staleMs,
    };
  },
};

/** `MIMIC_INTERNAL_URL`: an http(s) base URL without a path, query or credentials. */
function internalUrl(env: Record<string, string | undefined>): { internalUrl?: string } {
  const raw = env.MIMIC_INTERNAL_URL?.trim();
  if (!raw) return {};
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigurationError('MIMIC_INTERNAL_URL must be an http(s) URL such as http://10.0.0.5:8080');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new ConfigurationError('MIMIC_INTERNAL_URL must be an http(s) base URL (scheme, host and port only), such as http://10.0.0.5:8080');
  }
  return { internalUrl: url.origin };
}

/** Where the other processes reach this one when MIMIC_INTERNAL_URL is not set: its own listener (loopback when it listens on every interface). */
export function defaultInternalUrl(host: string, port: number): string {
  const h = host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}
