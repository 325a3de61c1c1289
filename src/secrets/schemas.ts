import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { IsoTime, named } from '../schemas/common.ts';

/**
 * JSON Schemas of the secrets endpoints. Credential values are printable ASCII for tokens and
 * keys (they travel in HTTP headers, so CR/LF and other controls would split a request), and
 * any text without control characters for passwords (base64-encoded on the wire).
 */
const Provider = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'a free label naming the external API' });
const HeaderValueToken = (what: string) =>
  Type.String({
    minLength: 8,
    maxLength: 8192,
    pattern: '^[\\x21-\\x7e](?:[\\x20-\\x7e]*[\\x21-\\x7e])?$',
    description: `${what}: 8 to 8192 printable ASCII characters, no leading or trailing space`,
  });
/** RFC 9110 token characters; names that would break the request are refused in code (see FORBIDDEN_HEADER_NAMES). */
export const HeaderName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
  description: 'an HTTP header name (RFC 9110 token), default X-API-Key',
});
const Username = Type.String({ minLength: 1, maxLength: 256, pattern: '^[^:\\x00-\\x1f\\x7f]+$', description: '1 to 256 characters, no colon or control characters' });
const Password = Type.String({ minLength: 1, maxLength: 1024, pattern: '^[^\\x00-\\x1f\\x7f]+$', description: '1 to 1024 characters, no control characters' });

/** Header names an api_key secret may not use: they would change how the request is framed or routed. */
export const FORBIDDEN_HEADER_NAMES = [
  'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer',
  'expect', 'proxy-connection', 'content-type', 'content-encoding',
] as const;

const typeOf = <T extends string>(t: T) => Type.Literal(t);

export const CreateBearerSecret = named(
  'CreateBearerSecret',
  Type.Object({ type: typeOf('bearer'), provider: Provider, token: HeaderValueToken('token') }, { additionalProperties: false }),
);
export const CreateApiKeySecret = named(
  'CreateApiKeySecret',
  Type.Object(
    { type: typeOf('api_key'), provider: Provider, api_key: HeaderValueToken('api_key'), header_name: Type.Optional(HeaderName) },
    { additionalProperties: false },
  ),
);
export const CreateBasicSecret = named(
  'CreateBasicSecret',
  Type.Object({ type: typeOf('basic'), provider: Provider, username: Username, password: Password }, { additionalProperties: false }),
);
export const CreateSecret = Type.Union([CreateBearerSecret, CreateApiKeySecret, CreateBasicSecret], {
  description: 'One of the three API-created types; oauth2 secrets are connected over OAuth (POST /secrets/oauth2/connections, or the studio) or imported by an operator.',
});

/** PUT bodies: every field optional; a credential field that is absent or null keeps the stored value. */
const keep = <T extends TSchema>(s: T) => Type.Optional(Type.Union([s, Type.Null()]));
export const UpdateBearerSecret = named(
  'UpdateBearerSecret',
  Type.Object({ type: Type.Optional(typeOf('bearer')), provider: Type.Optional(Provider), token: keep(HeaderValueToken('token')) }, { additionalProperties: false }),
);
export const UpdateApiKeySecret = named(
  'UpdateApiKeySecret',
  Type.Object(
    { type: Type.Optional(typeOf('api_key')), provider: Type.Optional(Provider), api_key: keep(HeaderValueToken('api_key')), header_name: Type.Optional(HeaderName) },
    { additionalProperties: false },
  ),
);
export const UpdateBasicSecret = named(
  'UpdateBasicSecret',
  Type.Object(
    { type: Type.Optional(typeOf('basic')), provider: Type.Optional(Provider), username: Type.Optional(Username), password: keep(Password) },
    { additionalProperties: false },
  ),
);
export const UpdateOAuth2Secret = named(
  'UpdateOAuth2Secret',
  Type.Object({ type: Type.Optional(typeOf('oauth2')), provider: Type.Optional(Provider) }, { additionalProperties: false }),
);
export const UpdateSecret = Type.Union([UpdateBearerSecret, UpdateApiKeySecret, UpdateBasicSecret, UpdateOAuth2Secret], {
  description:
    'Replaces the stored credential (absent or null credential fields keep their value; changing `type` needs every field of the new type). oauth2 secrets accept a new `provider` only.',
});

export const SecretType = Type.Union([typeOf('bearer'), typeOf('api_key'), typeOf('basic'), typeOf('oauth2')]);

/** How many tools and how many agents `used_by` lists at most (the totals count them all). */
export const USAGE_LISTED = 20;

/** What refers to a secret: the tools that send it and the agents that use it (as their model key, or through one of those tools). */
export const SecretUsage = named(
  'SecretUsage',
  Type.Object(
    {
      tools: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }), {
        description: `the tools whose auth names this secret, newest first (at most ${USAGE_LISTED})`,
      }),
      tools_total: Type.Integer({ minimum: 0, description: 'how many tools refer to it in all' }),
      agents: Type.Array(
        Type.Object(
          {
            id: Type.String(),
            name: Type.String({ description: 'the agent\'s preview_name, or "" when it has none' }),
            model: Type.Boolean({ description: 'the secret is the key of the agent\'s model provider (llm.secret_id)' }),
            tool_ids: Type.Array(Type.String(), { description: 'the agent\'s tools that send the secret' }),
          },
          { additionalProperties: false },
        ),
        { description: `the agents that use it, newest first (at most ${USAGE_LISTED})` },
      ),
      agents_total: Type.Integer({ minimum: 0, description: 'how many agents use it in all' }),
    },
    { additionalProperties: false },
  ),
);
export type SecretUsageView = Static<typeof SecretUsage>;

export const Secret = named(
  'Secret',
  Type.Object(
    {
      id: Type.String(),
      provider: Type.String(),
      type: SecretType,
      sanitized_secret: Type.String({ description: 'always the same fixed mask, never the credential' }),
      created_at: IsoTime,
      updated_at: IsoTime,
      last_used_at: Type.Optional(IsoTime),
      status: Type.Union([typeOf('active'), typeOf('needs_reauthorization')], {
        description: 'needs_reauthorization: the oauth2 refresh token was revoked; calls using it fail until it is connected again',
      }),
      header_name: Type.Optional(Type.String({ description: 'api_key secrets: the header the key is sent in' })),
      expires_at: Type.Optional(Type.Union([IsoTime, Type.Null()], { description: 'oauth2 secrets: when the stored access token expires' })),
      // In GET /secrets and GET /secrets/{id}: which tools and agents use the secret (a secret in use cannot be deleted).
      used_by: Type.Optional(SecretUsage),
    },
    { additionalProperties: false },
  ),
);
export type SecretView = Static<typeof Secret>;

export const SecretList = Type.Array(Secret, {
  description: 'A page of secrets, newest first (a bare array, as the hosted service answers; limit defaults to 100). The next page: `X-Next-Token` header / `Link: rel="next"`.',
});

export type CreateSecretBody = Static<typeof CreateSecret>;
export type UpdateSecretBody = Static<typeof UpdateSecret>;
