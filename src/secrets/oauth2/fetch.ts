import type { CustomFetch, FetchBody } from 'openid-client';
import type { GuardedClient } from '../../egress/client.ts';

/** A token response is a small JSON object; anything bigger is not one. */
export const TOKEN_RESPONSE_MAX_BYTES = 64 * 1024;

/** Statuses whose Response must not have a body (the constructor throws otherwise). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function bodyText(body: FetchBody): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  // openid-client streams no body for the grants we use; refuse rather than buffer one blindly.
  throw new TypeError('streamed request bodies are not supported');
}

/**
 * Removes `id_token` from a token response. We never use it, and openid-client validates its
 * `iss` against the issuer we made up from the token URL's origin (we do no discovery): for
 * Google or Microsoft, whose id_token issuer differs from the token host, every refresh
 * would fail.
 */
function withoutIdToken(body: Buffer): Buffer {
  try {
    const json: unknown = JSON.parse(body.toString('utf8'));
    if (!json || typeof json !== 'object' || Array.isArray(json) || !('id_token' in json)) return body;
    const { id_token: _unused, ...rest } = json as Record<string, unknown>;
    return Buffer.from(JSON.stringify(rest));
  } catch {
    return body;
  }
}

/**
 * openid-client's `customFetch` over the guarded client, so the token request gets the same
 * egress policy, deadline and size cap as every other outbound call. The guarded client never
 * follows redirects: a 3xx reaches openid-client as-is and fails as a non-conform response.
 * `keepIdToken`: the connect flow, which discovered the real issuer and checks the ID token's
 * `nonce`, keeps it; refreshes drop it (see withoutIdToken).
 */
export function guardedFetch(client: GuardedClient, timeoutMs: number, opts: { keepIdToken?: boolean } = {}): CustomFetch {
  return async (url, init) => {
    const res = await client.request(url, {
      method: init.method,
      headers: init.headers,
      body: bodyText(init.body),
      timeoutMs,
      maxBytes: TOKEN_RESPONSE_MAX_BYTES,
    });
    if (NULL_BODY_STATUSES.has(res.status)) return new Response(null, { status: res.status, headers: res.headers });
    const body = res.status === 200 && !opts.keepIdToken ? withoutIdToken(res.body) : res.body;
    const headers = { ...res.headers };
    delete headers['content-length'];
    return new Response(new Uint8Array(body), { status: res.status, headers });
  };
}
