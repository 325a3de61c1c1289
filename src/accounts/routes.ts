import { Type } from '@sinclair/typebox';
import { ApiError } from '../errors.ts';
import type { Route } from '../platform/module.ts';
import { named } from '../schemas/common.ts';
import { JWKS_MAX_AGE_SECONDS, type KeyRing } from './signing-keys.ts';
import type { TokenService } from './tokens.ts';

export const IssuedTokenSchema = named(
  'IssuedToken',
  Type.Object(
    {
      access_token: Type.String({ description: 'a JWT (ES256): send it as Authorization: Bearer <access_token>' }),
      token_type: Type.Literal('Bearer'),
      expires_in: Type.Integer({ description: 'seconds until it expires' }),
    },
    { additionalProperties: false },
  ),
);

/** The public JWKS and the exchange of an API key for a bearer token. */
export function accountRoutes(deps: { ring: KeyRing; tokens: TokenService; clock: { now(): number } }): Route[] {
  return [
    {
      method: 'get', path: '/.well-known/jwks.json', tag: 'Accounts', access: 'public', security: [],
      summary: 'The public keys bearer tokens are signed with (JWKS)',
      description: 'Keys appear here before they sign and stay while tokens they signed may still be valid; cache for at most five minutes.',
      ok: { status: 200, description: '{keys: [JWK]}', contentType: 'application/jwk-set+json' },
      handler: async (c) => {
        const body = await deps.ring.jwks(deps.clock.now());
        return c.body(JSON.stringify(body), 200, { 'content-type': 'application/jwk-set+json', 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` });
      },
    },
    {
      method: 'post', path: '/auth/token', tag: 'Accounts',
      summary: 'Exchange the API key for a short-lived bearer token',
      description: 'The token carries the same permissions as the key and stops working when the key is revoked. A bearer token cannot be exchanged for another (403).',
      bodyOptional: true,
      ok: { status: 200, schema: IssuedTokenSchema, description: 'the token' },
      errors: ['AuthorizationError', 'PermissionError'],
      handler: async (c) => {
        const user = c.get('user');
        if ((user.via ?? 'api-key') !== 'api-key' || user.keyId === undefined) {
          throw new ApiError('PermissionError', 'A bearer token cannot mint another: exchange an API key (Authorization: Basic <API_KEY>)');
        }
        c.header('cache-control', 'no-store');
        return c.json(await deps.tokens.issue({ userId: user.id, sid: user.keyId }));
      },
    },
  ];
}
