import type { TSchema } from '@sinclair/typebox';
import { JsonError } from '../schemas/common.ts';
import { errorStatus } from '../errors.ts';
import type { Route } from '../platform/module.ts';
import { REQUEST_EXAMPLES } from './request-examples.ts';

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

/**
 * The areas of the API in the order the README presents them, each with a line for the
 * reference's navigation; a route whose tag is not here comes after them.
 */
const TAGS: readonly { name: string; description: string }[] = [
  { name: 'Animations', description: 'A photo moving like a driver video (legacy: creating one is deprecated, reading and deleting are not). docs/animation-limits.md' },
  { name: 'Clips', description: 'A presenter says a script, in an offline voice or a cloned one; presenters are listed and managed here. docs/clips.md, docs/presenters.md' },
  { name: 'Talks', description: 'A photo that speaks a script. docs/talks.md' },
  { name: 'Voices', description: 'The voices a clip or talk may speak with. docs/voices.md' },
  { name: 'Media', description: 'Uploads a clip, talk, consent or avatar refers to: images, audio, videos.' },
  { name: 'Consents', description: 'A person reads a generated statement on video; the recording is verified before an avatar may be made of them. docs/consents.md' },
  { name: 'Avatars', description: 'Premium-plus avatars: footage of a consenting person, checked and trained into a presenter. docs/avatars.md' },
  { name: 'Agents', description: 'An agent: a presenter with an LLM, a knowledge base and tools; chats. docs/agents.md' },
  { name: 'Agent streams', description: 'A live agent over WebRTC: the streams every new streaming feature comes to. docs/streams.md' },
  { name: 'Client keys', description: "A browser page's key for one agent: its runtime, streams, chat and notifications, from the listed origins only. docs/agents.md#client-keys" },
  { name: 'Talk streams', description: 'Legacy live talk streams over WebRTC, kept for existing integrations; agent streams replace them. docs/streams.md' },
  { name: 'Clip streams', description: 'Legacy live clip streams over WebRTC, kept for existing integrations; agent streams replace them. docs/streams.md' },
  { name: 'Secrets', description: 'Credentials stored once, encrypted at rest; no response ever shows one.' },
  { name: 'Tools', description: 'Server tools that call an external API with a secret attached, through the egress policy.' },
  { name: 'Webhooks', description: 'The signing secret of webhooks and the record of their deliveries.' },
  { name: 'Compute workers', description: 'Render workers on other machines (MIMIC_COMPUTE_BACKEND=remote). docs/compute-protocol.md' },
  { name: 'Internal', description: 'Between the API processes of one deployment (signed with a key derived from the master key), never for clients: a live stream\'s requests forwarded to the process that holds it. docs/streams-across-processes.md' },
  { name: 'Audit', description: 'What was done with your account, by whom.' },
  { name: 'Accounts', description: 'Your account: who you are, your studio sessions and password; bearer tokens (JWT) for the API, and the keys that verify them. docs/accounts.md' },
  { name: 'Keys', description: 'Your API keys: create one (shown once), list them, revoke one. docs/studio.md' },
  { name: 'Studio', description: 'The web app for people at /studio: HTML pages, not an API. docs/studio.md' },
  { name: 'Service', description: 'Readiness, this document, the reference page, the landing page and the example page.' },
];

const exampleOf = (op: Route) => {
  const key = `${op.method.toUpperCase()} ${op.path}`;
  return Object.hasOwn(REQUEST_EXAMPLES, key) ? { example: REQUEST_EXAMPLES[key] } : {};
};

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
      const st = errorStatus(kind);
      // A route may only answer kinds some module declared: an undeclared one fails at start, not as a silent 500.
      if (st === undefined) throw new Error(`${op.method.toUpperCase()} ${op.path} lists error kind ${kind}, which no module declares (src/errors.ts)`);
      byStatus.set(st, [...(byStatus.get(st) ?? []), kind]);
    }
    for (const [st, kinds] of byStatus) {
      responses[st] = { description: kinds.join(' | '), content: { 'application/json': { schema: errorRef } } };
    }
    (paths[op.path] ??= {})[op.method] = {
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      operationId: `${op.method}${op.path.replace(/[{}]/g, '').replace(/\/(\w)/g, (_, ch: string) => ch.toUpperCase()).replace(/\W/g, '')}`,
      ...(op.deprecated ? { deprecated: true } : {}),
      ...(op.access === 'public' ? { security: op.security ?? [] } : op.clientKey ? { security: [{ basic: [] }, { bearer: [] }, { clientKey: [] }] } : {}),
      ...(op.params ? { parameters: op.params.map((p) => ({ ...p, ...(p.in === 'path' ? { required: true } : {}), schema: { type: 'string' } })) } : {}),
      ...(op.body ? { requestBody: { required: !op.bodyOptional, content: { 'application/json': { schema: ref(op.body), ...exampleOf(op) } } } } : {}),
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
        'Self-hostable video generation service and agent tool runtime, a drop-in for the hosted service\'s API. '
        + 'Authenticate with `Authorization: Basic <API_KEY>`: in this reference, **Authorize** asks for a username and a password; '
        + 'give the API key as the username and leave the password empty. Every error body is a JsonError.',
    },
    tags: (() => {
      const used = new Set(routes.map((r) => r.tag));
      const known = TAGS.filter((t) => used.has(t.name));
      return [...known, ...[...used].filter((t) => !TAGS.some((k) => k.name === t)).map((name) => ({ name }))];
    })(),
    servers: [{ url: publicUrl }],
    security: [{ basic: [] }, { bearer: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'Authorization: Basic <API_KEY>' },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A short-lived token: POST /auth/token exchanges an API key for one; the studio mints them for a signed-in person',
        },
        clientKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: "A browser's client key, as the agents SDK sends it: `Client-Key <client key>.<external id>_<connection id>`, from one of the key's allowed origins; only on the operations that list it",
        },
        studioSession: { type: 'apiKey', in: 'cookie', name: 'mimic_studio', description: 'The studio\'s session cookie (`__Host-mimic_studio` over https)' },
        workerToken: { type: 'http', scheme: 'bearer', description: 'A compute worker token (npm run -s mimic -- workers add)' },
      },
    },
  };
}
