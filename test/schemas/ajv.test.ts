import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { validate } from '../../src/schemas/ajv.ts';
import { ApiError } from '../../src/errors.ts';
import { clipSchemas } from '../../src/clips/schemas.ts';

const detailsOf = (schema: Parameters<typeof validate>[0], body: unknown) => {
  try {
    validate(schema, body);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return (err as ApiError).details;
  }
  throw new Error('expected a 400');
};

describe('field errors of unions', () => {
  const { CreateClip } = clipSchemas('s3');

  it('reports only the branch whose tag matched', () => {
    expect(detailsOf(CreateClip, { script: { type: 'text', input: 'hi' } })).toEqual([{ field: 'script.input', message: 'must NOT have fewer than 3 characters' }]);
    expect(detailsOf(CreateClip, { script: { type: 'audio' } })).toEqual([{ field: 'script.audio_url', message: 'is required' }]);
  });

  it('names every allowed tag when none matched', () => {
    expect(detailsOf(CreateClip, { script: { type: 'video', input: 'hello' } })).toEqual([{ field: 'script.type', message: 'must be one of "text", "audio"' }]);
  });

  it('names every allowed value of a union of literals', () => {
    const details = detailsOf(CreateClip, { script: { type: 'text', input: 'hello' }, config: { result_format: 'gif' } });
    expect(details).toEqual([{ field: 'config.result_format', message: 'must be one of "mp4", "mov", "webm"' }]);
  });

  it('keeps every branch when no branch has a tag', () => {
    const schema = Type.Object({ v: Type.Union([Type.Object({ a: Type.String() }, { additionalProperties: false }), Type.Object({ b: Type.Number() }, { additionalProperties: false })]) });
    const fields = (detailsOf(schema, { v: {} }) as { field: string }[]).map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['v.a', 'v.b']));
  });
});
