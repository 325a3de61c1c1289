import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { startTlsServer, testCertificate, type TestServer } from './tls.ts';
import { startLiveService, type LiveService } from './live-service.ts';

/**
 * A certified OpenID Connect provider (oidc-provider) on loopback https, with the self-signed
 * test certificate: its own login and consent pages (devInteractions: any login and password),
 * PKCE required for every client, refresh tokens only with `offline_access`, rotated on every
 * use, and revocation. One confidential client (client_secret_post) whose only redirect URI is
 * mimic's callback.
 */
export interface OidcProvider {
  issuer: string;
  /** PEM of the certificate: mimic's guarded client trusts it through `ca`. */
  ca: string;
  provider: Provider;
  /** Is `token` an access token the provider issued and still knows? Then its grant id. */
  grantOf(token: string): Promise<string | undefined>;
  /** The person withdraws the client's access at the provider: the grant and every token of it end. */
  revoke(grantId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startOidcProvider(client: { clientId: string; clientSecret: string; redirectUri: string }): Promise<OidcProvider> {
  const { key, cert } = await testCertificate();
  let handler: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined;
  const server: Server = createServer({ key, cert }, (req, res) => handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://localhost:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: client.clientId, client_secret: client.clientSecret, redirect_uris: [client.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post',
    }],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    rotateRefreshToken: true,
    scopes: ['openid', 'offline_access', 'calendar'],
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    cookies: { keys: ['oidc-provider-test-cookie-key-0123456789'] },
  });
  handler = provider.callback();
  return {
    issuer,
    ca: cert,
    provider,
    grantOf: async (token) => (await provider.AccessToken.find(token))?.grantId,
    revoke: async (grantId) => {
      await (await provider.Grant.find(grantId))?.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * What the connect tests run against: mimic on loopback (trusting the test certificate, its
 * clock `offset` ms ahead, egress to localhost allowed), the provider with mimic's callback as
 * its client's redirect URI, and an upstream API on https that accepts a bearer token only when
 * the provider says it issued it (every token it received, with its grant, in `seen`).
 */
export interface ConnectScene {
  mimic: LiveService;
  op: OidcProvider;
  api: TestServer;
  seen: { token: string; grant: string | undefined }[];
  /** Moves mimic's clock to `ms` past the real one (an access token expires). */
  setOffset(ms: number): void;
  close(): Promise<void>;
}

export async function startConnectScene(client: { clientId: string; clientSecret: string }): Promise<ConnectScene> {
  let offset = 0;
  // The provider's certificate is the one test certificate: mimic trusts it before the provider starts.
  const mimic = await startLiveService({
    env: { MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_TOOL_TIMEOUT_MS: '60000' },
    options: { ca: [(await testCertificate()).cert], clock: { now: () => Date.now() + offset } },
  });
  const op = await startOidcProvider({ ...client, redirectUri: `${mimic.base}/secrets/oauth2/callback` });
  const seen: ConnectScene['seen'] = [];
  const api = await startTlsServer(async (req, res) => {
    const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const grant = await op.grantOf(token);
    seen.push({ token, grant });
    res.writeHead(grant ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify(grant ? { events: [] } : { error: 'invalid_token' }));
  });
  return {
    mimic, op, api, seen,
    setOffset: (ms) => {
      offset = ms;
    },
    async close() {
      await mimic.close();
      await api.close();
      await op.close();
    },
  };
}
