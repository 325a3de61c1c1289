import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:https';
import type { ServerResponse } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { startTlsServer, type ReceivedRequest, type TestServer } from './tls.ts';

/**
 * A small OAuth 2.0 / OpenID Connect authorization server on loopback https, for the connect
 * flow's tests. What it enforces is what mimic must get right: discovery metadata with an
 * exact issuer, a registered redirect URI, PKCE S256 (the verifier must hash to the challenge),
 * single-use codes bound to client and redirect URI, client authentication (post or basic),
 * `iss` in the authorization response (RFC 9207), a signed ID token carrying the nonce, and
 * refresh tokens that rotate. Consent is decided by the test (`consent`), not by a page.
 * Every other path is the provider's API: it accepts only the access token issued last.
 */
export interface OAuthServer {
  server: TestServer;
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  consent: 'allow' | 'deny';
  /** Replaces the token endpoint's answer to an authorization_code grant (a provider error). */
  tokenFailure?: { status: number; body: object };
  /** Issue no refresh token. */
  omitRefresh: boolean;
  /** A public client: the token endpoint expects client_id alone (PKCE is its only proof). */
  publicClient: boolean;
  /** code_challenge_methods_supported in the metadata. */
  pkceMethods: string[];
  /** Put this nonce in the ID token instead of the one asked for (a replayed or injected ID token). */
  forgeNonce?: string;
  /** The tokens the next code exchange issues. */
  nextAccess: string;
  nextRefresh: string;
  /** The current tokens. */
  access?: string;
  refresh?: string;
  /** What the authorization endpoint received last (query parameters). */
  lastAuthorization?: URLSearchParams;
  tokenRequests(): ReceivedRequest[];
  apiRequests(): ReceivedRequest[];
  /** Follows an authorization URL as a browser would, to the redirect: the callback's path and query on mimic. */
  authorize(authorizationUrl: string): Promise<string>;
  close(): Promise<void>;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce?: string;
  scope: string;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export async function startOAuthServer(opts: { clientId: string; clientSecret: string; redirectUri: string }): Promise<OAuthServer> {
  const server = await startTlsServer();
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const codes = new Map<string, IssuedCode>();
  const paths = new Set(['/.well-known/openid-configuration', '/authorize', '/token', '/jwks']);

  const as: OAuthServer = {
    server,
    issuer: server.url,
    ...opts,
    consent: 'allow',
    omitRefresh: false,
    publicClient: false,
    pkceMethods: ['S256'],
    nextAccess: 'at-1',
    nextRefresh: 'rt-1',
    tokenRequests: () => server.received.filter((r) => r.path === '/token'),
    apiRequests: () => server.received.filter((r) => !paths.has(new URL(r.path, server.url).pathname)),
    authorize: (url) => follow(url, server.ca),
    close: () => server.close(),
  };

  const json = (res: ServerResponse, status: number, body: object) =>
    void res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));

  function authorizeEndpoint(params: URLSearchParams, res: ServerResponse): void {
    as.lastAuthorization = params;
    const redirect = params.get('redirect_uri');
    // Errors before a trusted redirect URI is known are shown, never redirected (RFC 6749 4.1.2.1).
    if (params.get('client_id') !== as.clientId || redirect !== as.redirectUri) return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
    const back = new URL(redirect);
    const state = params.get('state');
    if (state) back.searchParams.set('state', state);
    back.searchParams.set('iss', as.issuer);
    const challenge = params.get('code_challenge');
    if (params.get('response_type') !== 'code') back.searchParams.set('error', 'unsupported_response_type');
    else if (params.get('code_challenge_method') !== 'S256' || !challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) back.searchParams.set('error', 'invalid_request');
    else if (as.consent === 'deny') back.searchParams.set('error', 'access_denied');
    else {
      const code = randomBytes(16).toString('base64url');
      const nonce = params.get('nonce');
      codes.set(code, { clientId: as.clientId, redirectUri: redirect, challenge, scope: params.get('scope') ?? '', ...(nonce ? { nonce } : {}) });
      back.searchParams.set('code', code);
    }
    res.writeHead(302, { location: back.href }).end();
  }

  function clientOf(req: ReceivedRequest, form: URLSearchParams): [string | null, string | null] {
    const header = req.headers.authorization;
    if (typeof header === 'string' && header.startsWith('Basic ')) {
      const [id = '', secret = ''] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':').map((p) => decodeURIComponent(p.replace(/\+/g, ' ')));
      return [id, secret];
    }
    return [form.get('client_id'), form.get('client_secret')];
  }

  async function tokenEndpoint(req: ReceivedRequest, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(req.body.toString('utf8'));
    const [id, secret] = clientOf(req, form);
    if (id !== as.clientId || secret !== (as.publicClient ? null : as.clientSecret)) return json(res, 401, { error: 'invalid_client' });
    if (form.get('grant_type') === 'refresh_token') {
      if (!as.refresh || form.get('refresh_token') !== as.refresh) return json(res, 400, { error: 'invalid_grant' });
      as.access = `${as.access}-r`;
      as.refresh = `${as.refresh}-r`;
      return json(res, 200, { access_token: as.access, refresh_token: as.refresh, token_type: 'Bearer', expires_in: 3600 });
    }
    if (form.get('grant_type') !== 'authorization_code') return json(res, 400, { error: 'unsupported_grant_type' });
    const code = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? ''); // single use, whatever happens next
    if (!code || code.clientId !== id || code.redirectUri !== form.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
    const verifier = form.get('code_verifier');
    if (!verifier || s256(verifier) !== code.challenge) return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
    if (as.tokenFailure) return json(res, as.tokenFailure.status, as.tokenFailure.body);
    as.access = as.nextAccess;
    as.refresh = as.omitRefresh ? undefined : as.nextRefresh;
    const now = Math.floor(Date.now() / 1000);
    const idToken = code.scope.split(' ').includes('openid')
      ? await new SignJWT({ ...(code.nonce ? { nonce: as.forgeNonce ?? code.nonce } : {}) })
          .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
          .setIssuer(as.issuer).setAudience(as.clientId).setSubject('person-1').setIssuedAt(now).setExpirationTime(now + 300)
          .sign(privateKey as CryptoKey)
      : undefined;
    json(res, 200, {
      access_token: as.access, token_type: 'Bearer', expires_in: 3600, scope: code.scope,
      ...(as.refresh ? { refresh_token: as.refresh } : {}), ...(idToken ? { id_token: idToken } : {}),
    });
  }

  server.handle(async (req, res) => {
    const url = new URL(req.path, server.url);
    switch (url.pathname) {
      case '/.well-known/openid-configuration':
        return json(res, 200, {
          issuer: as.issuer, authorization_endpoint: `${as.issuer}/authorize`, token_endpoint: `${as.issuer}/token`, jwks_uri: `${as.issuer}/jwks`,
          response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'],
          code_challenge_methods_supported: as.pkceMethods, token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
          grant_types_supported: ['authorization_code', 'refresh_token'], scopes_supported: ['openid', 'offline_access', 'calendar'],
          authorization_response_iss_parameter_supported: true,
        });
      case '/jwks':
        return json(res, 200, { keys: [jwk] });
      case '/authorize':
        return authorizeEndpoint(url.searchParams, res);
      case '/token':
        return tokenEndpoint(req, res);
      default: {
        const ok = !!as.access && req.headers.authorization === `Bearer ${as.access}`;
        return json(res, ok ? 200 : 401, ok ? { events: [] } : { error: 'invalid_token' });
      }
    }
  });
  return as;
}

/** One GET of the authorization URL (trusting the test certificate): the Location it redirects to, as a path on mimic. */
function follow(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      res.resume();
      const location = res.headers.location;
      if (res.statusCode !== 302 || !location) return reject(new Error(`the authorization endpoint answered ${res.statusCode}`));
      const back = new URL(location);
      resolve(`${back.pathname}${back.search}`);
    })
      .on('error', reject)
      .end();
  });
}
