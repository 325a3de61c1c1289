import { Type } from '@sinclair/typebox';
import { ApiError } from '../errors.ts';
import type { Route } from '../platform/module.ts';
import { named } from '../schemas/common.ts';
import { validate } from '../schemas/ajv.ts';
import { jsonBody } from '../http/body.ts';
import { JWKS_MAX_AGE_SECONDS, type KeyRing } from './signing-keys.ts';
import { accountOf, changePassword, revokeOwnSession, sessionsOf, type AccountDeps } from './account.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';
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

const Password = (description: string) => Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, description });

export const ChangePasswordSchema = named(
  'ChangePassword',
  Type.Object(
    {
      current_password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description: 'the password now' }),
      new_password: Password(`the new password, ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`),
    },
    { additionalProperties: false },
  ),
);

const AccountSchema = named(
  'Account',
  Type.Object({
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()], { description: 'null: this user has no studio account' }),
    permissions: Type.Array(Type.String()),
    via: Type.String({ description: 'how this request authenticated: api-key or token' }),
    session_id: Type.Optional(Type.String({ description: 'the studio session the token was minted for' })),
  }),
);

const SessionSchema = Type.Object({
  id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  last_seen_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  address: Type.Union([Type.String(), Type.Null()]),
  current: Type.Boolean({ description: 'the session this request\'s token was minted for' }),
});
const SessionsSchema = named('StudioSessions', Type.Object({ sessions: Type.Array(SessionSchema) }));

/** The public JWKS, the exchange of an API key for a bearer token, and the caller's own account. */
export function accountRoutes(deps: { ring: KeyRing; tokens: TokenService; clock: { now(): number }; account: AccountDeps }): Route[] {
  const id = { name: 'id', in: 'path', description: 'the session (ses_...)', required: true } as const;
  return [
    {
      method: 'get', path: '/account', tag: 'Accounts', summary: 'Who you are: your user, studio email and permissions',
      ok: { status: 200, schema: AccountSchema, description: 'the account' }, errors: ['AuthorizationError'],
      handler: async (c) => c.json(await accountOf(deps.account, c.get('user'))),
    },
    {
      method: 'get', path: '/account/sessions', tag: 'Accounts', summary: 'Your live studio sessions, newest first',
      ok: { status: 200, schema: SessionsSchema, description: 'the sessions' }, errors: ['AuthorizationError'],
      handler: async (c) => c.json(await sessionsOf(deps.account, c.get('user'))),
    },
    {
      method: 'delete', path: '/account/sessions/{id}', tag: 'Accounts', summary: 'Sign a studio session out (its tokens stop working at once)', params: [id],
      ok: { status: 204, description: 'revoked' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => {
        await revokeOwnSession(deps.account, c.get('user'), c.req.param('id')!);
        return c.body(null, 204);
      },
    },
    {
      method: 'put', path: '/account/password', tag: 'Accounts', summary: 'Change your studio password (your other sessions are signed out)',
      body: ChangePasswordSchema,
      ok: { status: 200, description: '{revoked_sessions}' }, errors: ['BadRequestError', 'AuthorizationError', 'PermissionError', 'NotFoundError'],
      handler: async (c) => c.json(await changePassword(deps.account, c.get('user'), validate(ChangePasswordSchema, await jsonBody(c)))),
    },
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
