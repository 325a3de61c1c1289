import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  ClientSecretBasic, ClientSecretPost, Configuration, None, authorizationCodeGrant, buildAuthorizationUrl, calculatePKCECodeChallenge,
  customFetch, randomNonce, randomPKCECodeVerifier, randomState, type ClientAuth, type ServerMetadata,
} from 'openid-client';
import { ApiError, notFound } from '../../errors.ts';
import { isoTime } from '../../clock.ts';
import { validate } from '../../schemas/ajv.ts';
import { auditRecord, type AuditRecord } from '../../audit/contract.ts';
import type { GuardedClient } from '../../egress/client.ts';
import type { Logger } from '../../log.ts';
import type { OAuthConnectionRow } from '../../db/schema.ts';
import type { SealedValue } from '../../vault/index.ts';
import { checkOutboundUrls } from '../../resources/outbound-urls.ts';
import type { SecretDeps } from '../deps.ts';
import { importOAuth2Grant, ImportError } from '../oauth2-import.ts';
import { guardedFetch } from '../oauth2/fetch.ts';
import { failureReason } from '../oauth2/refresher.ts';
import { DiscoveryFailed, PROVIDER_TIMEOUT_MS, discoverIssuer } from './discovery.ts';
import type { ConnectionStore, FailedStatus } from './store.ts';
import { StartConnection, type ConnectionView, type StartedConnectionView } from './schemas.ts';

/** Where the callback of a studio attempt (return_to studio) sends the browser: the studio's page for the attempt. */
export const STUDIO_RESULT_PATH = '/studio/secrets/connect';

/** How long the person has to consent at the provider. */
export const CONNECTION_TTL_MS = 10 * 60_000;
export const CALLBACK_PATH = '/secrets/oauth2/callback';

export interface ConnectDeps extends SecretDeps {
  connections: ConnectionStore;
  client: GuardedClient;
  log: Logger;
  /** deriveKey(master, 'oauth-state'): the table holds HMACs of states, never a state. */
  stateKey: Buffer;
  /** `${publicUrl}/secrets/oauth2/callback`: the only redirect URI mimic ever sends. */
  redirectUri: string;
}

type AuthMethod = OAuthConnectionRow['authMethod'];

/** Why a callback stored nothing: each has its own page. */
export type CallbackFailure =
  | 'bad_state' | 'used_state' | 'expired' | 'denied' | 'provider_error' | 'invalid_response' | 'no_refresh_token' | 'secret_gone' | 'interrupted' | 'wrong_browser';
/** `studio`: the attempt was started with return_to studio, and this is the browser that started it. */
export type CallbackOutcome =
  | { ok: true; connectionId: string; secretId: string; provider: string; reconnected: boolean; studio: boolean }
  | { ok: false; reason: CallbackFailure; provider?: string; connectionId?: string; providerError?: string; studio?: boolean };

const hashState = (key: Buffer, state: string) => createHmac('sha256', key).update(state).digest('base64url');
/** A studio attempt keeps (sealed) the HMAC of its browser's binding cookie, never the cookie. */
const hashBrowser = (key: Buffer, browser: string) => createHmac('sha256', key).update(`browser:${browser}`).digest('base64url');
/** The binding cookie's value: 256 random bits, base64url. */
export const BROWSER_BINDING = /^[A-Za-z0-9_-]{43}$/;

const badBody = (field: string, message: string) => new ApiError('BadRequestError', `Invalid request body: ${field} ${message}`, [{ field, message }]);

function clientAuth(method: AuthMethod, secret: string | undefined): ClientAuth {
  if (method === 'none' || !secret) return None();
  return method === 'client_secret_basic' ? ClientSecretBasic(secret) : ClientSecretPost(secret);
}

function httpsUrl(field: string, value: unknown): string {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null;
  if (!url || url.protocol !== 'https:') throw badBody(field, 'must be an https URL');
  if (url.username || url.password) throw badBody(field, 'must not carry user:password@');
  return url.href;
}

/** The auth method: the one asked for, else client_secret_post (or basic when the server lists only that), none without a secret. */
function authMethodOf(asked: AuthMethod | undefined, secret: string | undefined, supported: readonly string[] | undefined): AuthMethod {
  const method: AuthMethod = asked ?? (!secret ? 'none' : supported && !supported.includes('client_secret_post') && supported.includes('client_secret_basic') ? 'client_secret_basic' : 'client_secret_post');
  if (method === 'none' && secret) throw badBody('client_secret', 'must be absent for token_endpoint_auth_method none (a public client)');
  if (method !== 'none' && !secret) throw badBody('client_secret', `is required for token_endpoint_auth_method ${method}`);
  return method;
}

/** The provider's endpoints: discovered from the issuer, or the two URLs given. */
async function endpointsOf(deps: ConnectDeps, body: { issuer?: string; authorization_url?: string; token_url?: string }) {
  if (body.issuer !== undefined) {
    if (body.authorization_url !== undefined || body.token_url !== undefined) throw badBody('issuer', 'excludes authorization_url and token_url (they are discovered)');
    const issuer = httpsUrl('issuer', body.issuer);
    await checkOutboundUrls(deps.client, [['issuer', issuer]], []);
    let metadata: ServerMetadata;
    try {
      metadata = await discoverIssuer(deps.client, body.issuer);
    } catch (err) {
      if (!(err instanceof DiscoveryFailed)) throw err;
      throw badBody('issuer', `could not be discovered (${err.reason}): no OpenID Connect or RFC 8414 metadata at its .well-known address`);
    }
    const authorizationUrl = httpsUrl('issuer', metadata.authorization_endpoint);
    const tokenUrl = httpsUrl('issuer', metadata.token_endpoint);
    const pkce = metadata.code_challenge_methods_supported;
    if (pkce && !pkce.includes('S256')) throw badBody('issuer', 'does not support PKCE with S256 (code_challenge_methods_supported)');
    await checkOutboundUrls(deps.client, [['issuer', tokenUrl]], []);
    return { issuer: metadata.issuer, metadata, authorizationUrl, tokenUrl };
  }
  if (body.authorization_url === undefined || body.token_url === undefined) {
    throw badBody(body.authorization_url === undefined ? 'authorization_url' : 'token_url', 'is required when there is no issuer');
  }
  const authorizationUrl = httpsUrl('authorization_url', body.authorization_url);
  const tokenUrl = httpsUrl('token_url', body.token_url);
  await checkOutboundUrls(deps.client, [['token_url', tokenUrl]], []);
  // No discovery: openid-client needs an issuer; ours is the authorization endpoint's origin (no ID token is checked against it).
  const metadata: ServerMetadata = { issuer: new URL(authorizationUrl).origin, authorization_endpoint: authorizationUrl, token_endpoint: tokenUrl };
  return { issuer: null, metadata, authorizationUrl, tokenUrl };
}

/**
 * POST /secrets/oauth2/connections: a new attempt and the URL to send the person to. The
 * code verifier, the nonce and the client secret are sealed in the vault for (user, attempt).
 */
export async function startConnection(deps: ConnectDeps, userId: string, raw: Record<string, unknown>, browser?: string): Promise<StartedConnectionView> {
  const body = validate(StartConnection, raw);
  // return_to studio binds the attempt to the browser's cookie (the route reads or makes it).
  if ((body.return_to === 'studio') !== (browser !== undefined && BROWSER_BINDING.test(browser))) throw new Error('startConnection: return_to studio goes with a browser binding');
  if (body.secret_id !== undefined) {
    const target = await deps.secretStore.get(userId, body.secret_id);
    if (!target) throw notFound('Secret');
    if (target.type !== 'oauth2') throw badBody('secret_id', `names a ${target.type} secret; only an oauth2 secret can be reconnected`);
  }
  const { issuer, metadata, authorizationUrl, tokenUrl } = await endpointsOf(deps, body);
  const authMethod = authMethodOf(body.token_endpoint_auth_method, body.client_secret, metadata.token_endpoint_auth_methods_supported);
  const openId = issuer !== null && body.scopes.includes('openid');

  const state = randomState();
  const codeVerifier = randomPKCECodeVerifier();
  const nonce = openId ? randomNonce() : undefined;
  const config = new Configuration(metadata, body.client_id);
  const url = buildAuthorizationUrl(config, {
    redirect_uri: deps.redirectUri,
    response_type: 'code',
    ...(body.scopes.length ? { scope: body.scopes.join(' ') } : {}),
    state,
    code_challenge: await calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...(nonce ? { nonce } : {}),
    // OpenID Connect Core 11: a request for offline access must ask for consent, or the provider drops the scope (and issues no refresh token).
    ...(body.scopes.includes('offline_access') ? { prompt: 'consent' } : {}),
  });

  const id = deps.newId('oac');
  const sealed = await deps.vault.seal(userId, id, {
    code_verifier: codeVerifier,
    ...(nonce ? { nonce } : {}),
    ...(body.client_secret ? { client_secret: body.client_secret } : {}),
    ...(browser !== undefined ? { browser: hashBrowser(deps.stateKey, browser) } : {}),
  });
  const now = deps.clock.now();
  const row: OAuthConnectionRow = {
    id, userId, stateHash: hashState(deps.stateKey, state), status: 'pending', provider: body.provider, issuer,
    metadata: issuer === null ? null : JSON.stringify(metadata), authorizationUrl, tokenUrl, clientId: body.client_id,
    scopes: JSON.stringify(body.scopes), authMethod, sealed: JSON.stringify(sealed), targetSecretId: body.secret_id ?? null,
    resultSecretId: null, errorCode: null, createdAt: now, expiresAt: now + CONNECTION_TTL_MS, finishedAt: null,
  };
  await deps.connections.create(row);
  return { id, status: 'pending', authorization_url: url.href, redirect_uri: deps.redirectUri, expires_at: isoTime(row.expiresAt) };
}

/** GET /secrets/oauth2/connections/{id}. A pending attempt past its expiry reads as expired. */
export async function fetchConnection(deps: ConnectDeps, userId: string, id: string): Promise<ConnectionView> {
  const row = await deps.connections.get(userId, id);
  if (!row) throw notFound('Connection');
  const lapsed = row.status === 'pending' && row.expiresAt <= deps.clock.now();
  const status = lapsed ? 'expired' : row.status;
  const error = lapsed ? 'expired' : row.errorCode;
  return {
    id: row.id, status, provider: row.provider, ...(row.issuer ? { issuer: row.issuer } : {}), scopes: JSON.parse(row.scopes) as string[],
    ...(row.resultSecretId ? { secret_id: row.resultSecretId } : {}), ...(row.targetSecretId ? { reconnects: row.targetSecretId } : {}), ...(error ? { error } : {}),
    created_at: isoTime(row.createdAt), expires_at: isoTime(row.expiresAt), ...(row.finishedAt !== null ? { finished_at: isoTime(row.finishedAt) } : {}),
  };
}

/** An OAuth error code as the provider sent it, if it looks like one (RFC 6749 4.1.2.1); never its free-text description. */
const errorCode = (value: string | undefined): string | undefined => (value && /^[a-z0-9_.-]{1,60}$/i.test(value) ? value : undefined);

/**
 * GET /secrets/oauth2/callback: claims the attempt of `state` (once), redeems the code with
 * its PKCE verifier and stores the grant as an oauth2 secret. Any failure ends the attempt
 * and stores nothing.
 */
export async function completeConnection(deps: ConnectDeps, query: Record<string, string | undefined>, browser?: string): Promise<CallbackOutcome> {
  const { state } = query;
  if (!state || state.length > 512) return { ok: false, reason: 'bad_state' };
  const stateHash = hashState(deps.stateKey, state);
  const now = deps.clock.now();
  const row = await deps.connections.claim(stateHash, now);
  if (!row) return unclaimed(deps, stateHash, now);

  let studio = false;
  const fail = async (status: FailedStatus, reason: CallbackFailure, detail: string, providerError?: string): Promise<CallbackOutcome> => {
    deps.log.warn('oauth2 connect failed', { connection_id: row.id, provider_host: hostOf(row.tokenUrl), reason: detail });
    await deps.connections.finishFailed(row.id, status, reason, deps.clock.now(), connectAudit(deps, row, 'failure', reason, row.targetSecretId));
    return { ok: false, reason, provider: row.provider, connectionId: row.id, studio, ...(providerError ? { providerError } : {}) };
  };
  try {
    const values = await deps.vault.open(row.userId, row.id, JSON.parse(row.sealed) as SealedValue[]);
    if (values.browser !== undefined) {
      // A studio attempt completes only in the browser that started it (the login-CSRF defence, SECURITY.md).
      const given = browser !== undefined && BROWSER_BINDING.test(browser) ? hashBrowser(deps.stateKey, browser) : '';
      if (!sameText(given, values.browser)) return await fail('failed', 'wrong_browser', 'wrong_browser');
      studio = true;
    }
    const outcome = await redeem(deps, row, values, query, fail);
    return outcome.ok ? { ...outcome, studio } : outcome;
  } catch (err) {
    // A fault of ours (the vault, the database): the attempt ends rather than stay claimed, and the error goes on to the 500.
    await fail('failed', 'interrupted', 'internal').catch(() => undefined);
    throw err;
  }
}

type Fail = (status: FailedStatus, reason: CallbackFailure, detail: string, providerError?: string) => Promise<CallbackOutcome>;

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The claimed attempt: the provider's answer checked, the code redeemed, the grant stored. */
async function redeem(
  deps: ConnectDeps, row: OAuthConnectionRow, values: Record<string, string>, query: Record<string, string | undefined>, fail: Fail,
): Promise<CallbackOutcome> {
  if (query.error !== undefined) {
    const code = errorCode(query.error);
    return code === 'access_denied' ? fail('denied', 'denied', 'access_denied') : fail('failed', 'provider_error', code ?? 'malformed_error', code);
  }
  if (!query.code) return fail('failed', 'invalid_response', 'no_code');
  const metadata: ServerMetadata = row.metadata
    ? (JSON.parse(row.metadata) as ServerMetadata)
    : { issuer: new URL(row.authorizationUrl).origin, authorization_endpoint: row.authorizationUrl, token_endpoint: row.tokenUrl };
  const config = new Configuration(metadata, row.clientId, undefined, clientAuth(row.authMethod, values.client_secret));
  // An ID token is kept (and its nonce checked) only from a discovered issuer.
  config[customFetch] = guardedFetch(deps.client, PROVIDER_TIMEOUT_MS, { keepIdToken: row.issuer !== null });
  const current = new URL(deps.redirectUri);
  for (const name of ['code', 'state', 'iss'] as const) if (query[name] !== undefined) current.searchParams.set(name, query[name]!);

  let tokens: Awaited<ReturnType<typeof authorizationCodeGrant>>;
  try {
    tokens = await authorizationCodeGrant(config, current, {
      pkceCodeVerifier: values.code_verifier!,
      expectedState: query.state!,
      ...(values.nonce ? { expectedNonce: values.nonce } : {}),
    });
  } catch (err) {
    // invalid_response: the answer failed openid-client's checks (an ID token's nonce, iss or aud; a malformed body).
    const reason = failureReason(err);
    return reason === 'invalid_response' ? fail('failed', 'invalid_response', reason) : fail('failed', 'provider_error', reason, errorCode(reason));
  }
  if (!tokens.refresh_token) return fail('failed', 'no_refresh_token', 'no_refresh_token');

  let secretId: string;
  try {
    const secret = await importOAuth2Grant(deps, {
      userId: row.userId, provider: row.provider, tokenUrl: row.tokenUrl, clientId: row.clientId, clientSecret: values.client_secret ?? '',
      clientAuthMethod: row.authMethod, accessToken: tokens.access_token, refreshToken: tokens.refresh_token,
      // Unknown lifetime: refresh before the first call, which then learns it.
      expiresIn: tokens.expires_in ?? 0,
      ...(row.targetSecretId ? { secretId: row.targetSecretId } : {}),
    });
    secretId = secret.id;
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    return row.targetSecretId && /does not exist|deleted/.test(err.message)
      ? fail('failed', 'secret_gone', 'secret_gone')
      : fail('failed', 'invalid_response', 'unusable_tokens');
  }
  await deps.connections.finishConnected(row.id, secretId, deps.clock.now(), connectAudit(deps, row, 'success', undefined, secretId));
  deps.log.info('oauth2 account connected', { connection_id: row.id, secret_id: secretId, provider_host: hostOf(row.tokenUrl) });
  return { ok: true, connectionId: row.id, secretId, provider: row.provider, reconnected: row.targetSecretId !== null, studio: false };
}

/** An exchange takes seconds (10 s deadlines); one still running an hour after its attempt expired lost its process. */
const STUCK_MS = 3600_000;
/** Ended attempts are kept this long for GET .../connections/{id}, then deleted. */
export const KEEP_ENDED_MS = 7 * 24 * 3600_000;
export const SWEEP_EVERY_MS = 10 * 60_000;

/** Ends the attempts nobody came back to (their sealed values emptied) and deletes old ended ones. */
export async function sweepConnections(deps: ConnectDeps): Promise<void> {
  const now = deps.clock.now();
  const { ended, deleted } = await deps.connections.sweep(now, STUCK_MS, now - KEEP_ENDED_MS);
  if (ended || deleted) deps.log.info('oauth2 connect attempts swept', { ended, deleted });
}

/** A state that claimed nothing: unknown, already used, or pending past its expiry (then it ends as expired). */
async function unclaimed(deps: ConnectDeps, stateHash: string, now: number): Promise<CallbackOutcome> {
  const row = await deps.connections.byState(stateHash);
  if (!row) return { ok: false, reason: 'bad_state' };
  if (row.status === 'pending' && row.expiresAt <= now) {
    await deps.connections.finishFailed(row.id, 'expired', 'expired', now, connectAudit(deps, row, 'failure', 'expired', row.targetSecretId));
    return { ok: false, reason: 'expired', provider: row.provider, connectionId: row.id };
  }
  return { ok: false, reason: row.status === 'expired' ? 'expired' : 'used_state', provider: row.provider, connectionId: row.id };
}

function connectAudit(deps: ConnectDeps, row: OAuthConnectionRow, outcome: 'success' | 'failure', reason: string | undefined, secretId: string | null): AuditRecord {
  return auditRecord(deps.newId, deps.clock.now(), {
    userId: row.userId, action: 'secret.connect', outcome, secretId,
    detail: { type: 'oauth2', provider: row.provider, ...(reason ? { reason } : {}) },
  });
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).hostname : 'unknown';
}
