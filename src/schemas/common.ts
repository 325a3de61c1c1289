import { Type, type TArray, type TObject, type TOptional, type TSchema, type TString } from '@sinclair/typebox';

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

/** One page of a list: `{<field>: [item, ...], token?}`, the token absent on the last page. */
export const pageOf = <K extends string, T extends TSchema>(field: K, item: T, id: string) =>
  Type.Object(
    {
      [field]: Type.Array(item),
      token: Type.Optional(Type.String({ description: 'pass as ?token= to get the next page; absent on the last page' })),
    } as { [P in K]: TArray<T> } & { token: TOptional<TString> },
    { $id: id },
  ) as TObject<{ [P in K]: TArray<T> } & { token: TOptional<TString> }>;

export const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Names the schema in the OpenAPI document's components. */
export const named = <T extends TSchema>(id: string, schema: T): T => ({ ...schema, $id: id }) as T;

/** An https:// or storage URL of a photo: its path ends in an image extension (animations' source_url, a talk's photo). */
export function photoUrl(storageScheme: string) {
  const s = escapeRegex(storageScheme);
  const ext = ['jpg', 'jpeg', 'tiff', 'png', 'bmp'].flatMap((e) => [e, e.toUpperCase()]).join('|');
  return Type.String({
    pattern: `^(?:https|${s})://[^\\s?#]+\\.(?:${ext})(?:[?#][^\\s]*)?$`,
    description: `https:// or ${storageScheme}:// URL whose path ends in .jpg, .jpeg, .tiff, .png or .bmp (lower or upper case)`,
  });
}

const Dimension = Double({ maximum: 8000 });

export const Rect = Type.Object(
  { top: Dimension, left: Dimension, bottom: Dimension, right: Dimension },
  { additionalProperties: false, $id: 'Rect' },
);

export const FaceSquare = Type.Object(
  {
    size: Int32({ minimum: 0, description: 'side of the square' }),
    top_left: Type.Array(Dimension, { minItems: 2, maxItems: 2, description: 'top-left corner [x, y]; may be negative' }),
    overlap: Type.Optional(Type.Union([Type.Literal('NO'), Type.Literal('PARTIAL'), Type.Literal('YES'), Type.Literal('UNKNOWN')])),
    face_id: Type.Optional(Type.String()),
    detect_confidence: Type.Optional(Double()),
    sharpness: Type.Optional(Double()),
    face_occluded: Type.Optional(Type.Boolean()),
    face_occluded_confidence: Type.Optional(Double()),
    detection: Type.Optional(Rect),
  },
  { additionalProperties: false, $id: 'FaceSquare' },
);

