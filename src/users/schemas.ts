import { Type } from '@sinclair/typebox';
import { IsoTime, named, pageOf } from '../schemas/common.ts';

/** JSON Schemas of a person's own API keys (GET/POST/DELETE /keys): never a key's hash, the key itself only once. */
export const ApiKey = named(
  'ApiKey',
  Type.Object(
    {
      id: Type.String({ description: 'key_...' }),
      prefix: Type.String({ description: 'the first 12 characters of the key, to tell keys apart' }),
      created_at: IsoTime,
      revoked_at: Type.Union([IsoTime, Type.Null()], { description: 'when it was revoked; null while it works' }),
      current: Type.Boolean({ description: 'true for the key this request came with: once it is revoked, its next request is refused (401)' }),
    },
    { additionalProperties: false },
  ),
);

export const ApiKeyList = pageOf('keys', ApiKey, 'ApiKeyList');

export const NewApiKey = named(
  'NewApiKey',
  Type.Object(
    {
      id: Type.String({ description: 'key_...' }),
      api_key: Type.String({ description: 'the key, shown only this once: send it as Authorization: Basic <api_key>' }),
      prefix: Type.String({ description: 'the first 12 characters of the key' }),
      created_at: IsoTime,
    },
    { additionalProperties: false },
  ),
);
