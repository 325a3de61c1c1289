import { customFetch, discovery, type ServerMetadata } from 'openid-client';
import type { GuardedClient } from '../../egress/client.ts';
import { guardedFetch } from '../oauth2/fetch.ts';
import { failureReason } from '../oauth2/refresher.ts';

/** Deadline of one discovery or token request. */
export const PROVIDER_TIMEOUT_MS = 10_000;

export class DiscoveryFailed extends Error {
  constructor(readonly reason: string) {
    super(`discovery failed (${reason})`);
    this.name = 'DiscoveryFailed';
  }
}

/**
 * The provider's metadata from its issuer: OpenID Connect Discovery
 * (`/.well-known/openid-configuration`) first, then RFC 8414
 * (`/.well-known/oauth-authorization-server`). openid-client checks that the document's
 * `issuer` is exactly the one asked for. Every request goes through the guarded client
 * (egress policy, deadline, 64 KiB cap, no redirects).
 */
export async function discoverIssuer(client: GuardedClient, issuer: string): Promise<ServerMetadata> {
  const fetch = guardedFetch(client, PROVIDER_TIMEOUT_MS, { keepIdToken: true });
  let reason = 'invalid_response';
  for (const algorithm of ['oidc', 'oauth2'] as const) {
    try {
      const config = await discovery(new URL(issuer), 'mimic', undefined, undefined, { [customFetch]: fetch, algorithm, timeout: PROVIDER_TIMEOUT_MS / 1000 });
      return config.serverMetadata();
    } catch (err) {
      reason = failureReason(err);
    }
  }
  throw new DiscoveryFailed(reason);
}
