import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { testCertificate } from './tls.ts';

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
