import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, named } from '../schemas/common.ts';

/**
 * JSON Schemas of the tools endpoints. `schema.parameters` is the user's own JSON Schema:
 * here only "an object"; src/tools/exec/parameters.ts checks it is a valid, compilable
 * schema of `type: object` within the documented limits.
 */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const ServerToolConfig = named(
  'ServerToolConfig',
  Type.Object(
    {
      type: Type.Literal('server'),
      url: Type.String({
        minLength: 1,
        maxLength: 2048,
        pattern: '^https?://\\S+$',
        description: 'http(s) URL; `{name}` placeholders in the path or query are filled from the input (URL-encoded). https is required when the tool has auth.',
      }),
      method: Type.Union(
        METHODS.flatMap((m) => [Type.Literal(m), Type.Literal(m.toLowerCase())]),
        { description: 'GET and DELETE send the input as the query string, the others as a JSON body' },
      ),
      timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000, description: 'upstream deadline, default 10000' })),
    },
    { additionalProperties: false },
  ),
);

export const ClientToolConfig = named(
  'ClientToolConfig',
  Type.Object({ type: Type.Literal('client') }, { additionalProperties: false, description: 'runs in the user\'s browser; never executed by the server' }),
);

export const ToolAuth = named(
  'ToolAuth',
  Type.Object({ secret_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
);

export const ToolBody = named(
  'ToolBody',
  Type.Object(
    {
      name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: '1 to 64 letters, digits, _ or - (what language models accept as a function name)' }),
      description: Type.String({ minLength: 1, maxLength: 4096, description: 'seen by the language model with the name and schema' }),
      provider: Type.String({ minLength: 1, maxLength: 200 }),
      schema: Type.Object(
        { parameters: Type.Object({}, { additionalProperties: true, description: 'a JSON Schema with type object' }) },
        { additionalProperties: false },
      ),
      config: Type.Union([ServerToolConfig, ClientToolConfig]),
      auth: Type.Optional(ToolAuth),
    },
    { additionalProperties: false },
  ),
);
export type ToolBodyInput = Static<typeof ToolBody>;

export const Tool = named(
  'Tool',
  Type.Object(
    {
      id: Type.String(),
      object: Type.Literal('tool'),
      name: Type.String(),
      description: Type.String(),
      provider: Type.String(),
      schema: Type.Object({ parameters: Type.Object({}, { additionalProperties: true }) }),
      config: Type.Union([ServerToolConfig, ClientToolConfig]),
      auth: Type.Optional(ToolAuth),
      created_at: IsoTime,
      updated_at: IsoTime,
    },
    { additionalProperties: false },
  ),
);
export type ToolView = Static<typeof Tool>;

export const ToolValidation = named(
  'ToolValidation',
  Type.Object({ valid: Type.Literal(true) }, { additionalProperties: false, description: 'what POST /tools/validate answers for a body POST /tools would accept' }),
);

export const ToolList = Type.Object({ tools: Type.Array(Tool), token: Type.Optional(Type.String()) }, { additionalProperties: false });

export const ToolCallBody = named(
  'ToolCallBody',
  Type.Object({ input: Type.Object({}, { additionalProperties: true, description: 'the arguments, checked against schema.parameters' }) }, { additionalProperties: false }),
);

export const ToolCallResult = named(
  'ToolCallResult',
  Type.Object(
    {
      call_id: Type.String(),
      tool_id: Type.String(),
      name: Type.String(),
      input: Type.Object({}, { additionalProperties: true }),
      output: Type.Object({
        status: Type.Integer({ description: 'the upstream HTTP status' }),
        headers: Type.Record(Type.String(), Type.String()),
        body: Type.Unknown({ description: 'parsed JSON, or text; credentials used for the call are masked' }),
      }),
      duration_ms: Type.Number(),
    },
    { additionalProperties: false },
  ),
);
export type ToolCallResultView = Static<typeof ToolCallResult>;
