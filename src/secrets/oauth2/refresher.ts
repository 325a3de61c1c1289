import { setTimeout as sleep } from 'node:timers/promises';
import {
  ClientSecretBasic,
  ClientSecretPost,
  Configuration,
  customFetch,
  None,
  ResponseBodyError,
  WWWAuthenticateChallengeError,
  refreshTokenGrant,
  type ClientAuth,
} from 'openid-client';
import type { Clock } from '../../clock.ts';
import { EgressError } from '../../egress/errors.ts';
import type { GuardedClient } from '../../egress/client.ts';
import type { Logger } from '../../log.ts';
import { ReauthorizationRequired, RefreshFailed } from './errors.ts';
import { guardedFetch } from './fetch.ts';
import { newLockOwner } from './lock.ts';
import type { LeaseLock } from '../../jobs/lock-store.ts';
import type { OAuth2Grant, RefreshedTokens, TokenStore } from './token-store.ts';

/**
 * Keeps OAuth2 access tokens fresh. A refresh token may be single-use (rotation), so two
 * concurrent refreshes can invalidate each other: refreshes are single-flight per secret
 * inside a process (a shared promise) and across processes (a lease lock on the secrets
 * row, then a re-read, because another process may have refreshed while we waited).
 */

export interface OAuth2RefreshEvent {
  secretId: string;
  userId: string;
  outcome: 'success' | 'failure';
  /** For failures: 'invalid_grant' or a RefreshFailed reason. */
  reason?: string;
}

export interface OAuth2RefresherOptions {
  tokens: TokenStore;
  /** The lease lock on `secrets` rows (src/secrets/lock-store.ts), shared by every process on the database. */
  lock: LeaseLock;
  client: GuardedClient;
  clock: Clock;
  log: Logger;
  /** Refresh this long before expiry, so a token does not expire on its way upstream. */
  skewMs?: number;
  leaseMs?: number;
  /** Poll interval while another process holds the lock. */
  waitMs?: number;
  maxWaitMs?: number;
  /** Deadline of the token request; below leaseMs so the lease outlives the request. */
  timeoutMs?: number;
  /** Called once per token-endpoint exchange (not per caller), e.g. to write audit rows. */
  onEvent?: (event: OAuth2RefreshEvent) => void;
}

export interface OAuth2Refresher {
  /** A usable access token, refreshed first when it expires within skewMs. */
  accessTokenFor(secretId: string): Promise<string>;
  /** The upstream answered 401 to `staleAccessToken`: a token other than that one. */
  refreshAfterRejection(secretId: string, staleAccessToken: string): Promise<string>;
}

type Staleness = (grant: OAuth2Grant) => boolean;

function hostOf(tokenUrl: string): string {
  try {
    return new URL(tokenUrl).hostname || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** A short code for a failed exchange, safe to log: never the message or body of the cause. */
export function failureReason(err: unknown): string {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof EgressError) return e.reason;
    if (e instanceof ResponseBodyError) return /^[a-z0-9_.-]{1,40}$/i.test(e.error) ? e.error : 'oauth_error';
    if (e instanceof WWWAuthenticateChallengeError) return `http_${e.status}`;
    if (e instanceof Response) return `http_${e.status}`;
  }
  return 'invalid_response';
}

function clientAuth(grant: OAuth2Grant): ClientAuth {
  if (!grant.clientSecret) return None();
  return grant.clientAuthMethod === 'client_secret_basic' ? ClientSecretBasic(grant.clientSecret) : ClientSecretPost(grant.clientSecret);
}

export function createOAuth2Refresher(opts: OAuth2RefresherOptions): OAuth2Refresher {
  const { tokens, lock, client, clock, log } = opts;
  const skewMs = opts.skewMs ?? 60_000;
  const leaseMs = opts.leaseMs ?? 30_000;
  const waitMs = opts.waitMs ?? 25;
  const maxWaitMs = opts.maxWaitMs ?? 15_000;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  if (timeoutMs >= leaseMs) throw new Error('oauth2 refresher: timeoutMs must be below leaseMs, or a slow exchange outlives its lock');
  const fetch = guardedFetch(client, timeoutMs);
  const inFlight = new Map<string, Promise<string>>();

  const expiring: Staleness = (g) => g.expiresAt !== null && g.expiresAt - clock.now() <= skewMs;

  function emit(event: OAuth2RefreshEvent): void {
    try {
      opts.onEvent?.(event);
    } catch (err) {
      log.error('oauth2 refresh event hook failed', { secretId: event.secretId, error: (err as Error)?.name });
    }
  }

  async function readUsable(secretId: string): Promise<OAuth2Grant> {
    const grant = await tokens.read(secretId);
    if (!grant) throw new RefreshFailed(secretId, 'unknown', 'not_found');
    if (grant.status === 'needs_reauthorization') throw new ReauthorizationRequired(secretId);
    return grant;
  }

  /** The network half: one refresh_token grant. Runs only while holding the lock. */
  async function exchange(grant: OAuth2Grant): Promise<RefreshedTokens> {
    const host = hostOf(grant.tokenUrl);
    const url = URL.canParse(grant.tokenUrl) ? new URL(grant.tokenUrl) : null;
    if (url?.protocol !== 'https:') throw new RefreshFailed(grant.secretId, host, 'scheme');
    // No discovery: the issuer only has to be a URL; it is the token URL's origin.
    const config = new Configuration({ issuer: url.origin, token_endpoint: grant.tokenUrl }, grant.clientId, undefined, clientAuth(grant));
    config[customFetch] = fetch;
    const startedAt = clock.now();
    try {
      const res = await refreshTokenGrant(config, grant.refreshToken);
      return {
        accessToken: res.access_token,
        // Servers that do not rotate omit refresh_token; the old one stays valid.
        refreshToken: res.refresh_token ?? grant.refreshToken,
        // Counted from the request's start: the server's clock started no later.
        expiresAt: res.expires_in === undefined ? null : startedAt + res.expires_in * 1000,
      };
    } catch (err) {
      if (err instanceof ResponseBodyError && err.error === 'invalid_grant') {
        await tokens.markNeedsReauthorization(grant.secretId, grant.version);
        throw new ReauthorizationRequired(grant.secretId);
      }
      throw new RefreshFailed(grant.secretId, host, failureReason(err));
    }
  }

  async function refreshLocked(grant: OAuth2Grant): Promise<string> {
    const host = hostOf(grant.tokenUrl);
    try {
      const fresh = await exchange(grant);
      try {
        await tokens.save(grant.secretId, fresh, grant.version);
      } catch (err) {
        // The server may already have rotated the refresh token we could not store.
        log.error('oauth2 refreshed tokens could not be saved', { secretId: grant.secretId, host, error: (err as Error)?.name });
        throw new RefreshFailed(grant.secretId, host, 'store');
      }
      log.info('oauth2 access token refreshed', { secretId: grant.secretId, host });
      emit({ secretId: grant.secretId, userId: grant.userId, outcome: 'success' });
      return fresh.accessToken;
    } catch (err) {
      const reason = err instanceof ReauthorizationRequired ? 'invalid_grant' : err instanceof RefreshFailed ? err.reason : 'unknown';
      log.warn('oauth2 token refresh failed', { secretId: grant.secretId, host, reason });
      emit({ secretId: grant.secretId, userId: grant.userId, outcome: 'failure', reason });
      throw err;
    }
  }

  /** Cross-process single flight: wait for the lock or for someone else's fresh tokens. */
  async function refreshAcrossProcesses(seen: OAuth2Grant, isStale: Staleness): Promise<string> {
    const { secretId } = seen;
    const owner = newLockOwner();
    for (let polls = Math.ceil(maxWaitMs / waitMs); !(await lock.take(secretId, owner, clock.now(), leaseMs)); polls--) {
      if (polls <= 0) throw new RefreshFailed(secretId, hostOf(seen.tokenUrl), 'lock_timeout');
      await sleep(waitMs);
      const grant = await readUsable(secretId);
      if (!isStale(grant)) return grant.accessToken;
    }
    try {
      // Another process may have refreshed between our read and taking the lock.
      const grant = await readUsable(secretId);
      return isStale(grant) ? await refreshLocked(grant) : grant.accessToken;
    } finally {
      await lock.release(secretId, owner);
    }
  }

  /** In-process single flight: concurrent callers share one refresh per secret. */
  function refresh(seen: OAuth2Grant, isStale: Staleness): Promise<string> {
    let flight = inFlight.get(seen.secretId);
    if (!flight) {
      flight = refreshAcrossProcesses(seen, isStale).finally(() => inFlight.delete(seen.secretId));
      inFlight.set(seen.secretId, flight);
    }
    return flight;
  }

  return {
    async accessTokenFor(secretId) {
      const grant = await readUsable(secretId);
      if (!expiring(grant)) return grant.accessToken;
      try {
        return await refresh(grant, expiring);
      } catch (err) {
        // Refreshing early failed for a transient reason, but the stored token has not
        // expired yet: use it rather than fail a call that would still succeed.
        if (err instanceof RefreshFailed && grant.expiresAt !== null && grant.expiresAt > clock.now()) {
          log.warn('oauth2: early refresh failed; using the stored token until it expires', { secret_id: secretId, reason: err.reason });
          return grant.accessToken;
        }
        throw err;
      }
    },

    async refreshAfterRejection(secretId, staleAccessToken) {
      const rejected: Staleness = (g) => g.accessToken === staleAccessToken;
      const grant = await readUsable(secretId);
      if (!rejected(grant)) return grant.accessToken;
      const token = await refresh(grant, rejected);
      // We may have joined a flight that judged staleness by expiry and kept the rejected token.
      return token === staleAccessToken ? refresh(grant, rejected) : token;
    },
  };
}
