import { Readable } from 'node:stream';
import type { Context } from 'hono';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Route, RouteParam } from '../platform/module.ts';
import type { AppEnv } from '../http/env.ts';
import { ApiError } from '../errors.ts';
import { jsonBody, optionalJsonBody } from '../http/body.ts';
import { validate } from '../schemas/ajv.ts';
import { ClaimBody, CompleteBody, FailBody, HeartbeatBody } from '../schemas/compute.ts';
import { bearerToken, type WorkerIdentity, type WorkerTokens } from '../compute/remote/tokens.ts';
import { TASK_FILE_NAMES } from '../compute/tasks/index.ts';
import {
  claimTask,
  completeTask,
  failTask,
  heartbeatTask,
  openInput,
  type ComputeServiceDeps,
  type FileQuery,
} from '../compute/remote/service.ts';
import { storeResult } from '../compute/remote/upload.ts';

/**
 * The compute worker protocol, /compute/v1 (docs/compute-protocol.md). Not API-key routes:
 * calls carry a worker token, and the file URLs carry their own signature (capability URLs).
 */
const workerToken = [{ workerToken: [] }];
const taskId: RouteParam = { name: 'id', in: 'path', description: 'the task id', required: true };
const fileParams: RouteParam[] = [
  taskId,
  { name: 'name', in: 'path', description: 'the file name the task lists', required: true },
  { name: 'lease', in: 'query', description: 'the lease the URL was signed for', required: true },
  { name: 'expires', in: 'query', description: 'unix seconds', required: true },
  { name: 'signature', in: 'query', description: 'HMAC signature', required: true },
];
const workerErrors = ['AuthorizationError', 'ValidationError', 'BadRequestError', 'NotFoundError', 'ConflictError'] as const;

export interface ComputeRouteDeps extends ComputeServiceDeps {
  workers: WorkerTokens;
}

export function computeRoutes(deps: ComputeRouteDeps): Route[] {

  const worker = async (c: Context<AppEnv>): Promise<WorkerIdentity> => {
    const token = bearerToken(c.req.header('authorization'));
    const found = token ? await deps.workers.verify(token) : null;
    if (found) return found;
    c.header('WWW-Authenticate', 'Bearer realm="mimic-compute"');
    throw new ApiError('AuthorizationError', 'Missing or invalid worker token: send Authorization: Bearer <worker token>');
  };
  const body = async (c: Context<AppEnv>) => (await optionalJsonBody(c)) ?? {};
  const fileQuery = (c: Context<AppEnv>): FileQuery => ({ lease: c.req.query('lease'), expires: c.req.query('expires'), signature: c.req.query('signature') });
  const fileName = (c: Context<AppEnv>): string => {
    const name = c.req.param('name') ?? '';
    if (!TASK_FILE_NAMES.has(name)) throw new ApiError('NotFoundError', 'The task has no such file');
    return name;
  };

  const fileHandler = async (c: Context<AppEnv>) => {
    const file = await openInput(deps, c.req.param('id')!, fileName(c), fileQuery(c));
    const headers = {
      'content-type': file.contentType,
      'content-length': String(file.size),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    };
    if (c.req.method === 'HEAD' || file.size === 0) return c.body(null, 200, headers);
    return c.body(Readable.toWeb(await file.open()) as ReadableStream<Uint8Array>, 200, headers);
  };
  const common = { tag: 'Compute workers', access: 'public', security: workerToken } as const;
  /** The file URLs: no token, their signature is the credential. */
  const signedFile = { ...common, security: [], params: fileParams } as const;
  /** A worker's call on its task: the token, the body checked against `schema`, the verb's answer as JSON. */
  const taskCall = <S extends TSchema>(
    verb: string, summary: string, schema: S, answer: string,
    act: (deps: ComputeServiceDeps, w: WorkerIdentity, taskId: string, input: Static<S>) => Promise<unknown>,
  ): Route => ({
    ...common, method: 'post', path: `/compute/v1/tasks/{id}/${verb}`, summary, params: [taskId], body: schema,
    ok: { status: 200, description: answer }, errors: [...workerErrors],
    handler: async (c) => {
      const w = await worker(c);
      const input = validate(schema, await jsonBody(c), 'request body', 'ValidationError');
      return c.json(await act(deps, w, c.req.param('id')!, input));
    },
  });
  return [
    {
      ...common, method: 'post', path: '/compute/v1/claim', summary: 'Claim the next task (long poll); 204 when none came', body: ClaimBody, bodyOptional: true,
      ok: { status: 200, description: 'a task with its lease and signed file URLs' }, errors: [...workerErrors],
      handler: async (c) => {
        const w = await worker(c);
        const input = validate(ClaimBody, await body(c), 'request body', 'ValidationError');
        const task = await claimTask(deps, w, input, c.req.raw.signal);
        return task ? c.json(task) : c.body(null, 204);
      },
    },
    taskCall('heartbeat', 'Extend the lease and report progress', HeartbeatBody, 'the lease, or that the task was cancelled', heartbeatTask),
    taskCall('complete', 'Finish the task with its uploaded result', CompleteBody, 'accepted', completeTask),
    taskCall('fail', 'Give the task up, with or without an error kind', FailBody, 'accepted', failTask),
    {
      // Hono answers HEAD with this handler too (and drops the body).
      ...signedFile, method: 'get', path: '/compute/v1/tasks/{id}/files/{name}', summary: 'Download a task input at its lease-bound signed URL',
      ok: { status: 200, description: 'the file', contentType: 'application/octet-stream' }, errors: ['PermissionError', 'NotFoundError'],
      handler: fileHandler,
    },
    {
      ...signedFile, method: 'put', path: '/compute/v1/tasks/{id}/files/{name}', summary: 'Upload a task output at its lease-bound signed URL',
      // Streamed to disk under its own limit (config.fetch.maxVideoBytes).
      bodyLimit: 'stream', rawBody: { contentType: 'application/octet-stream', description: 'the file bytes' },
      ok: { status: 204, description: 'stored' }, errors: ['PermissionError', 'NotFoundError', 'ConflictError', 'InvalidFileSizeError', 'PayloadTooLargeError'],
      handler: async (c) => {
        await storeResult(deps, c.req.param('id')!, fileName(c), fileQuery(c), c.req.raw.body, c.req.header('content-length'));
        return c.body(null, 204);
      },
    },
  ];
}
