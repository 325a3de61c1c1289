import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, named } from '../../schemas/common.ts';

/**
 * Connecting an account over OAuth 2.0 (authorization code + PKCE). The client secret is
 * printable ASCII without spaces (it travels in a form body or a Basic header); URLs are
 * https without user:password@ (checked again in code, with the egress policy).
 */
const HttpsUrl = (what: string) =>
  Type.String({ minLength: 9, maxLength: 2000, pattern: '^https://[^\\s@/?#]+(?:[/?][^\\s#]*)?$', description: `${what}: an https URL without user:password@ or fragment` });
const Printable = (what: string, max: number) =>
  Type.String({ minLength: 1, maxLength: max, pattern: '^[\\x21-\\x7e]+$', description: `${what}: 1 to ${max} printable ASCII characters, no spaces` });
const Scope = Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$', description: 'one scope (RFC 6749 3.3: no spaces, quotes or backslashes)' });

export const AuthMethod = Type.Union([Type.Literal('client_secret_post'), Type.Literal('client_secret_basic'), Type.Literal('none')], {
  description: 'how the client authenticates at the token endpoint (default client_secret_post; none: a public client, no client_secret)',
});

export const StartConnection = named(
  'StartOAuth2Connection',
  Type.Object(
    {
      provider: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'a free label naming the account (google, github, ...): the secret gets it' }),
      client_id: Printable('the OAuth client id registered at the provider', 1024),
      client_secret: Type.Optional(Printable('the OAuth client secret, stored in the vault', 8192)),
      issuer: Type.Optional(HttpsUrl('the issuer, discovered at <issuer>/.well-known/openid-configuration (or oauth-authorization-server); instead of the two endpoint URLs')),
      authorization_url: Type.Optional(HttpsUrl("the provider's authorization endpoint (with token_url, when there is no issuer)")),
      token_url: Type.Optional(HttpsUrl("the provider's token endpoint (with authorization_url, when there is no issuer)")),
      scopes: Type.Array(Scope, { minItems: 0, maxItems: 50, uniqueItems: true, description: "the scopes asked for; include the provider's offline scope (offline_access, ...) so that it issues a refresh token" }),
      secret_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'reconnect: the existing oauth2 secret (sec_...) whose grant the new one replaces; tools that use it keep working' })),
      token_endpoint_auth_method: Type.Optional(AuthMethod),
      return_to: Type.Optional(
        Type.Literal('studio', {
          description:
            'studio: for a page on mimic\'s own origin (the studio). The answer sets a cookie (`mimic_oauth`, HttpOnly, SameSite=Lax, Path=/secrets/oauth2/) ' +
            'that binds the attempt to this browser: the callback in a browser without it stores nothing. The callback then ends on the studio\'s page ' +
            'for the attempt (303 to /studio/secrets/connect?connection=<id>) instead of its own result page.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);
export type StartConnectionBody = Static<typeof StartConnection>;

export const ConnectionStatus = Type.Union(
  ['pending', 'exchanging', 'connected', 'denied', 'failed', 'expired'].map((s) => Type.Literal(s)),
  { description: 'pending: waiting for the person at the provider; exchanging: the callback is redeeming the code; connected: the secret is stored; denied, failed, expired: nothing was stored' },
);

export const ConnectionError = Type.Union(
  ['denied', 'provider_error', 'invalid_response', 'no_refresh_token', 'expired', 'secret_gone', 'interrupted', 'wrong_browser'].map((s) => Type.Literal(s)),
  {
    description:
      'why nothing was stored: the person refused consent, the provider answered an error or something unusable, it issued no refresh token, the attempt expired, ' +
      'the secret to reconnect was deleted meanwhile, the service stopped during the exchange, the callback came to another browser than the one that started a studio attempt (return_to studio)',
  },
);

export const Connection = named(
  'OAuth2Connection',
  Type.Object(
    {
      id: Type.String(),
      status: ConnectionStatus,
      provider: Type.String(),
      issuer: Type.Optional(Type.String()),
      scopes: Type.Array(Type.String()),
      secret_id: Type.Optional(Type.String({ description: 'connected: the oauth2 secret tools refer to (on reconnect, the same one)' })),
      reconnects: Type.Optional(Type.String({ description: 'a reconnect: the oauth2 secret (sec_...) the attempt was started for (secret_id of the request)' })),
      error: Type.Optional(ConnectionError),
      created_at: IsoTime,
      expires_at: IsoTime,
      finished_at: Type.Optional(IsoTime),
    },
    { additionalProperties: false },
  ),
);
export type ConnectionView = Static<typeof Connection>;

export const StartedConnection = named(
  'StartedOAuth2Connection',
  Type.Object(
    {
      id: Type.String(),
      status: Type.Literal('pending'),
      authorization_url: Type.String({ description: 'send the person here (a top-level navigation); it carries state, PKCE S256 and, for OpenID providers, nonce' }),
      redirect_uri: Type.String({ description: 'the callback the provider returns to: register exactly this URL with the client' }),
      expires_at: IsoTime,
    },
    { additionalProperties: false },
  ),
);
export type StartedConnectionView = Static<typeof StartedConnection>;
