/**
 * Forwarding a stream's request to the API process that holds its peer
 * (docs/streams-across-processes.md): `POST <owner_url>/internal/streams/{id}/{verb}` with the
 * caller's user id (never their credential) and the original body, signed with a key derived
 * from the master key. Only processes that share the master key can make the signature; the
 * route refuses everything else with 401 before it reads a field.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, errorStatus, type ErrorKind } from '../errors.ts';
import type { Clock } from '../clock.ts';

export const FORWARD_PREFIX = '/internal/streams';
/** `t=<ms since the epoch>,s=<base64url HMAC-SHA256 of "<t>.<path>.<body>">` */
export const FORWARD_HEADER = 'x-mimic-forward';
/** A signature older (or newer) than this is refused: a captured request cannot be replayed later. */
export const FORWARD_MAX_SKEW_MS = 30_000;
/** How long a forwarded request may take (an SDP answer or a speak waits on the owner's work). */
export const FORWARD_TIMEOUT_MS = 15_000;

/** The stream routes' verbs, and `speaker`: an agent's chat answer spoken on the stream (remote-speaker.ts). */
export const FORWARDED_VERBS = ['sdp', 'ice', 'speak', 'interrupt', 'delete', 'speaker'] as const;
export type ForwardedVerb = (typeof FORWARDED_VERBS)[number];
export type StreamVerb = Exclude<ForwardedVerb, 'speaker'>;
export const isForwardedVerb = (v: string): v is ForwardedVerb => (FORWARDED_VERBS as readonly string[]).includes(v);

/** What travels to the owner: who asks (already authenticated here), the agent of the path, and the body as the client sent it. */
export interface Forwarded {
  user_id: string;
  agent_id?: string;
  body: Record<string, unknown>;
}

const mac = (key: Buffer, t: number, path: string, body: string) => createHmac('sha256', key).update(`${t}.${path}.${body}`).digest('base64url');

export function signForward(key: Buffer, now: number, path: string, body: string): string {
  return `t=${now},s=${mac(key, now, path, body)}`;
}

/** True when `header` signs exactly this path and body, recently. */
export function verifyForward(key: Buffer, header: string | undefined, path: string, body: string, now: number): boolean {
  const m = header ? /^t=(\d{1,16}),s=([A-Za-z0-9_-]{43})$/.exec(header) : null;
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(now - t) > FORWARD_MAX_SKEW_MS) return false;
  const want = Buffer.from(mac(key, t, path, body));
  const got = Buffer.from(m[2]!);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** The owner could not be reached (refused, reset, timed out): it may have died. */
export class OwnerUnreachable extends Error {}

/**
 * Sends forwarded requests. Not the guarded egress client: the owner's address is the
 * operator's own (MIMIC_INTERNAL_URL of a sibling process, usually private or loopback,
 * which the egress policy refuses by design), never a URL a user gave.
 */
export function createForwarder(deps: { key: Buffer; clock: Clock; timeoutMs?: number }) {
  return {
    /** The owner's answer; its JsonError is thrown as the same ApiError; OwnerUnreachable when no answer came. */
    async forward(ownerUrl: string, streamId: string, verb: ForwardedVerb, payload: Forwarded): Promise<unknown> {
      const path = `${FORWARD_PREFIX}/${encodeURIComponent(streamId)}/${verb}`;
      const body = JSON.stringify(payload);
      let res: Response;
      let text: string;
      try {
        res = await fetch(new URL(path, ownerUrl), {
          method: 'POST',
          headers: { 'content-type': 'application/json', [FORWARD_HEADER]: signForward(deps.key, deps.clock.now(), path, body) },
          body,
          redirect: 'error',
          signal: AbortSignal.timeout(deps.timeoutMs ?? FORWARD_TIMEOUT_MS),
        });
        text = await res.text();
      } catch (err) {
        const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
        throw new OwnerUnreachable(`${err instanceof Error ? err.message : String(err)}${cause}`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (res.ok && parsed !== undefined) return parsed;
      const e = parsed as { kind?: unknown; description?: unknown; details?: unknown } | undefined;
      // The owner's JsonError, as it would have answered the client itself; its unexpected errors are its own (logged there with their request id).
      if (typeof e?.kind === 'string' && typeof e.description === 'string' && e.kind !== 'InternalServerError' && errorStatus(e.kind) !== undefined) {
        throw new ApiError(e.kind as ErrorKind, e.description, e.details);
      }
      throw new ApiError('ServiceUnavailableError', 'The process holding this stream could not answer: try again');
    },
  };
}

export type Forwarder = ReturnType<typeof createForwarder>;
