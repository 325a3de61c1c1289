import type { TSchema } from '@sinclair/typebox';
import { JsonError } from '../schemas/common.ts';
import { ERROR_STATUS } from '../errors.ts';
import type { Route } from '../platform/module.ts';

/** Replaces nested schemas that carry an `$id` by references to components (registering them). */
function componentize(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => componentize(s, components));
  if (schema === null || typeof schema !== 'object') return schema;
  const { $id, ...rest } = schema as Record<string, unknown>;
  const body = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, componentize(v, components)]));
  if (typeof $id === 'string') {
    components[$id] ??= body;
    return { $ref: `#/components/schemas/${$id}` };
  }
  return body;
}

/** The OpenAPI 3.1 document, built from the same schemas that validate requests. */
export function buildOpenApi(routes: readonly Route[], publicUrl: string) {
  const components: Record<string, unknown> = {};
  const ref = (s: TSchema) => componentize(JSON.parse(JSON.stringify(s)), components);
  const errorRef = ref(JsonError);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of routes) {
    const responses: Record<string, unknown> = {
      [op.ok.status]: {
        description: op.ok.description,
        ...(op.ok.schema ? { content: { 'application/json': { schema: ref(op.ok.schema) } } } : {}),
        ...(op.ok.contentType ? { content: { [op.ok.contentType]: {} } } : {}),
      },
    };
    const byStatus = new Map<number, string[]>();
    const limited = op.access === 'public' ? [] : (['TooManyRequestsError'] as const);
    // Every method but GET has a body limit (src/app.ts), so any of them may answer 413.
    const bodied = op.method === 'get' ? [] : (['PayloadTooLargeError'] as const);
    for (const kind of new Set([...(op.errors ?? []), ...bodied, ...limited, 'InternalServerError' as const])) {
      const st = ERROR_STATUS[kind];
      byStatus.set(st, [...(byStatus.get(st) ?? []), kind]);
    }
    for (const [st, kinds] of byStatus) {
      responses[st] = { description: kinds.join(' | '), content: { 'application/json': { schema: errorRef } } };
    }
    (paths[op.path] ??= {})[op.method] = {
      summary: op.summary,
      tags: [op.tag],
      operationId: `${op.method}${op.path.replace(/[{}]/g, '').replace(/\/(\w)/g, (_, ch: string) => ch.toUpperCase()).replace(/\W/g, '')}`,
      ...(op.deprecated ? { deprecated: true } : {}),
      ...(op.access === 'public' ? { security: op.security ?? [] } : {}),
      ...(op.params ? { parameters: op.params.map((p) => ({ ...p, ...(p.in === 'path' ? { required: true } : {}), schema: { type: 'string' } })) } : {}),
      ...(op.body ? { requestBody: { required: !op.bodyOptional, content: { 'application/json': { schema: ref(op.body) } } } } : {}),
      ...(op.rawBody ? { requestBody: { required: true, description: op.rawBody.description, content: { [op.rawBody.contentType]: {} } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mimic',
      version: '0.1.0',
      description:
        'Self-hostable video generation service and agent tool runtime. Authenticate with `Authorization: Basic <API_KEY>`. Every error body is a JsonError.',
    },
    servers: [{ url: publicUrl }],
    security: [{ basic: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'Authorization: Basic <API_KEY>' },
        workerToken: { type: 'http', scheme: 'bearer', description: 'A compute worker token (npm run -s mimic -- workers add)' },
      },
    },
  };
}
