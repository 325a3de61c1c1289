import type { TSchema } from '@sinclair/typebox';
import { JsonError } from '../schemas/common.ts';
import { AnimationList, Animation, CreateAnimationResponse, type AnimationSchemas } from '../schemas/animations.ts';
import { ERROR_STATUS } from '../errors.ts';
import { CreateSecret, Secret, SecretList, UpdateSecret } from '../schemas/secrets.ts';
import { AuditList, Tool, ToolBody, ToolCallBody, ToolCallResult, ToolList } from '../schemas/tools.ts';

interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  tag: string;
  auth?: boolean;
  deprecated?: boolean;
  body?: TSchema;
  params?: { name: string; in: 'path' | 'query'; description: string; required?: boolean }[];
  ok: { status: number; schema?: TSchema; description: string; contentType?: string };
  errors?: (keyof typeof ERROR_STATUS)[];
}

const idParam = { name: 'id', in: 'path' as const, description: 'the animation id', required: true };
const secretId = { name: 'id', in: 'path' as const, description: 'the secret id', required: true };
const toolId = { name: 'id', in: 'path' as const, description: 'the tool id', required: true };
const pageParams = [
  { name: 'limit', in: 'query' as const, description: 'page size, 1 to 100 (default 20)' },
  { name: 'token', in: 'query' as const, description: 'the token of the previous page' },
];

function operations(s: AnimationSchemas): Operation[] {
  return [
    { method: 'get', path: '/health', summary: 'Readiness check', tag: 'Service', auth: false, ok: { status: 200, description: 'ready' } },
    {
      method: 'post', path: '/animations', summary: 'Create an animation', tag: 'Animations', deprecated: true,
      body: s.CreateAnimation,
      ok: { status: 201, schema: CreateAnimationResponse, description: 'accepted; the animation is queued' },
      errors: ['BadRequestError', 'AuthorizationError', 'InsufficientCreditsError', 'PermissionError', 'PayloadTooLargeError'],
    },
    {
      method: 'get', path: '/animations', summary: 'List your animations, newest first', tag: 'Animations', params: pageParams,
      ok: { status: 200, schema: AnimationList, description: 'a page of animations' }, errors: ['BadRequestError', 'AuthorizationError'],
    },
    {
      method: 'get', path: '/animations/drivers', summary: 'The driver bank', tag: 'Animations',
      ok: { status: 200, description: 'categories and their drivers' }, errors: ['AuthorizationError'],
    },
    {
      method: 'get', path: '/animations/{id}', summary: 'Get an animation', tag: 'Animations', params: [idParam],
      ok: { status: 200, schema: Animation, description: 'the animation record' }, errors: ['AuthorizationError', 'NotFoundError'],
    },
    {
      method: 'delete', path: '/animations/{id}', summary: 'Delete an animation and its stored media', tag: 'Animations', params: [idParam],
      ok: { status: 200, schema: Animation, description: 'the deleted record' }, errors: ['AuthorizationError', 'NotFoundError'],
    },
    {
      method: 'post', path: '/images', summary: 'Upload a photo (multipart field "image"); answers {id, url} with a storage URL for source_url', tag: 'Media',
      ok: { status: 201, description: '{id, url}' }, errors: ['BadRequestError', 'InvalidFileSizeError', 'AuthorizationError', 'PayloadTooLargeError'],
    },
    {
      method: 'get', path: '/webhooks/secret', summary: 'Your webhook signing secret (Standard Webhooks)', tag: 'Webhooks',
      ok: { status: 200, description: '{secret, created_at}' }, errors: ['AuthorizationError'],
    },
    {
      method: 'post', path: '/webhooks/secret/rotate', summary: 'Rotate the signing secret (the old one signs alongside for 24 h)', tag: 'Webhooks',
      ok: { status: 200, description: '{secret, created_at, previous_expires_at}' }, errors: ['AuthorizationError'],
    },
    {
      method: 'get', path: '/webhooks/messages', summary: 'Webhook deliveries and their attempts', tag: 'Webhooks',
      params: [...pageParams, { name: 'resource_id', in: 'query', description: 'only messages about this record' }],
      ok: { status: 200, description: 'a page of messages' }, errors: ['AuthorizationError', 'BadRequestError'],
    },
    {
      method: 'post', path: '/secrets', summary: 'Store a credential (bearer, api_key or basic); oauth2 is connected in the studio', tag: 'Secrets',
      body: CreateSecret, ok: { status: 201, schema: Secret, description: 'the secret, with sanitized_secret only' },
      errors: ['BadRequestError', 'AuthorizationError', 'PayloadTooLargeError'],
    },
    {
      method: 'get', path: '/secrets', summary: 'List your secrets, newest first (next page: X-Next-Token / Link headers)', tag: 'Secrets', params: pageParams,
      ok: { status: 200, schema: SecretList, description: 'a page of secrets' }, errors: ['BadRequestError', 'AuthorizationError'],
    },
    {
      method: 'get', path: '/secrets/{id}', summary: 'Get a secret (never its value)', tag: 'Secrets', params: [secretId],
      ok: { status: 200, schema: Secret, description: 'the secret' }, errors: ['AuthorizationError', 'NotFoundError'],
    },
    {
      method: 'put', path: '/secrets/{id}', summary: 'Replace the stored credential; the next tool call uses it', tag: 'Secrets', params: [secretId],
      body: UpdateSecret, ok: { status: 200, schema: Secret, description: 'the secret' }, errors: ['BadRequestError', 'AuthorizationError', 'NotFoundError'],
    },
    {
      method: 'delete', path: '/secrets/{id}', summary: 'Delete a secret (409 while a tool refers to it)', tag: 'Secrets', params: [secretId],
      ok: { status: 200, schema: Secret, description: 'the deleted secret' }, errors: ['AuthorizationError', 'NotFoundError', 'ConflictError'],
    },
    {
      method: 'post', path: '/tools', summary: 'Define a server or client tool', tag: 'Tools', body: ToolBody,
      ok: { status: 201, schema: Tool, description: 'the tool' }, errors: ['BadRequestError', 'AuthorizationError', 'NotFoundError', 'PayloadTooLargeError'],
    },
    {
      method: 'get', path: '/tools', summary: 'List your tools, newest first', tag: 'Tools', params: pageParams,
      ok: { status: 200, schema: ToolList, description: 'a page of tools' }, errors: ['BadRequestError', 'AuthorizationError'],
    },
    {
      method: 'get', path: '/tools/{id}', summary: 'Get a tool', tag: 'Tools', params: [toolId],
      ok: { status: 200, schema: Tool, description: 'the tool' }, errors: ['AuthorizationError', 'NotFoundError'],
    },
    {
      method: 'put', path: '/tools/{id}', summary: 'Replace a tool (a new auth.secret_id swaps the secret)', tag: 'Tools', params: [toolId], body: ToolBody,
      ok: { status: 200, schema: Tool, description: 'the tool' }, errors: ['BadRequestError', 'AuthorizationError', 'NotFoundError'],
    },
    {
      method: 'delete', path: '/tools/{id}', summary: 'Delete a tool', tag: 'Tools', params: [toolId],
      ok: { status: 200, schema: Tool, description: 'the deleted tool' }, errors: ['AuthorizationError', 'NotFoundError'],
    },
    {
      method: 'post', path: '/tools/{id}/calls', summary: 'Call a server tool with input checked against its parameters', tag: 'Tools', params: [toolId],
      body: ToolCallBody, ok: { status: 200, schema: ToolCallResult, description: 'the upstream answer, credentials masked' },
      errors: ['BadRequestError', 'ValidationError', 'AuthorizationError', 'NotFoundError', 'ConflictError', 'BadGatewayError', 'GatewayTimeoutError'],
    },
    {
      method: 'get', path: '/audit', summary: 'Your audit trail of secrets and tools, newest first', tag: 'Audit',
      params: [
        ...pageParams,
        { name: 'secret_id', in: 'query', description: 'only events of this secret' },
        { name: 'tool_id', in: 'query', description: 'only events of this tool' },
        { name: 'action', in: 'query', description: 'only this action, e.g. secret.used' },
      ],
      ok: { status: 200, schema: AuditList, description: 'a page of events' }, errors: ['BadRequestError', 'AuthorizationError'],
    },
    {
      method: 'get', path: '/media/{path}', summary: 'A stored object at a signed, expiring URL (no API key)', tag: 'Media', auth: false,
      params: [
        { name: 'path', in: 'path', description: 'owner/key', required: true },
        { name: 'expires', in: 'query', description: 'unix seconds', required: true },
        { name: 'signature', in: 'query', description: 'HMAC signature', required: true },
      ],
      ok: { status: 200, description: 'the object (Range requests supported)', contentType: 'application/octet-stream' },
      errors: ['PermissionError', 'NotFoundError'],
    },
  ];
}

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
export function buildOpenApi(schemas: AnimationSchemas, publicUrl: string) {
  const components: Record<string, unknown> = {};
  const ref = (s: TSchema) => componentize(JSON.parse(JSON.stringify(s)), components);
  const errorRef = ref(JsonError);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations(schemas)) {
    const responses: Record<string, unknown> = {
      [op.ok.status]: {
        description: op.ok.description,
        ...(op.ok.schema ? { content: { 'application/json': { schema: ref(op.ok.schema) } } } : {}),
        ...(op.ok.contentType ? { content: { [op.ok.contentType]: {} } } : {}),
      },
    };
    const byStatus = new Map<number, string[]>();
    const limited = op.auth === false ? [] : (['TooManyRequestsError'] as const);
    for (const kind of [...(op.errors ?? []), ...limited, 'InternalServerError' as const]) {
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
      ...(op.auth === false ? { security: [] } : {}),
      ...(op.params ? { parameters: op.params.map((p) => ({ ...p, schema: { type: 'string' } })) } : {}),
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: ref(op.body) } } } } : {}),
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
    components: { schemas: components, securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
  };
}
