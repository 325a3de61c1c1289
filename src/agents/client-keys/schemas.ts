import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, named } from '../../schemas/common.ts';

/** The hosted service's field: the origins a browser page may use the key from. */
const AllowedDomains = Type.Array(Type.String({ maxLength: 200, description: 'an origin: https://example.com (scheme, host, port if not the default; no path)' }), {
  minItems: 1, maxItems: 20, description: 'the page origins the key works from (the Origin header a browser sends)',
});
const Name = Type.String({ maxLength: 100, description: 'a label to tell keys apart' });

export const CreateClientKey = named('CreateClientKey', Type.Object({ allowed_domains: AllowedDomains, name: Type.Optional(Name) }, { additionalProperties: false }));
export type CreateClientKeyBody = Static<typeof CreateClientKey>;

export const UpdateClientKey = named('UpdateClientKey', Type.Object({ allowed_domains: Type.Optional(AllowedDomains), name: Type.Optional(Name) }, { additionalProperties: false }));
export type UpdateClientKeyBody = Static<typeof UpdateClientKey>;

const common = {
  id: Type.String({ description: 'ck_...: the {clientKey} of PATCH and DELETE' }),
  prefix: Type.String({ description: 'the first 14 characters of the key, to tell keys apart' }),
  allowed_domains: Type.Array(Type.String()),
  name: Type.Optional(Name),
  resource_id: Type.String({ description: 'the agent id' }),
  created_at: IsoTime,
};

export const ClientKey = named('ClientKey', Type.Object(common, { additionalProperties: false }));

export const NewClientKey = named(
  'NewClientKey',
  Type.Object(
    { client_key: Type.String({ description: 'the key, shown only this once: the SDK sends Authorization: Client-Key <client_key>.<externalId>_<connectionId>' }), ...common },
    { additionalProperties: false },
  ),
);

export const ClientKeyList = named('ClientKeyList', Type.Array(ClientKey, { description: "the agent's active client keys, newest first (never a key itself)" }));
