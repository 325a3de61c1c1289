import { Type, type TSchema } from '@sinclair/typebox';

export const JsonError = Type.Object(
  {
    kind: Type.String(),
    description: Type.String(),
    details: Type.Optional(Type.Unknown()),
    internal: Type.Optional(Type.String()),
  },
  { additionalProperties: false, $id: 'JsonError', description: 'Every error response has exactly this shape.' },
);

export const Int32 = (opts: object = {}) =>
  Type.Integer({ format: 'int32', minimum: -(2 ** 31), maximum: 2 ** 31 - 1, ...opts });
export const Double = (opts: object = {}) => Type.Number({ format: 'double', ...opts });

export const IsoTime = Type.String({ format: 'date-time', description: 'ISO 8601 time' });

/** Query of every paginated list: `limit` (1 to 100, default 20) and the `token` from the previous page. */
export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^(?:[1-9]|[1-9][0-9]|100)$', description: '1 to 100, default 20' })),
    token: Type.Optional(Type.String({ maxLength: 200, description: 'token of the previous page' })),
  },
  { additionalProperties: true },
);

export const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Names the schema in the OpenAPI document's components. */
export const named = <T extends TSchema>(id: string, schema: T): T => ({ ...schema, $id: id }) as T;
