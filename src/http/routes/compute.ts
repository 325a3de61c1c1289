import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../../errors.ts';
import { jsonBody } from '../body.ts';
import { validate } from '../../schemas/ajv.ts';
import { ClaimBody, CompleteBody, FailBody, HeartbeatBody } from '../../schemas/compute.ts';
import { bearerToken, type WorkerIdentity, type WorkerTokens } from '../../compute/remote/tokens.ts';
import { isFileName } from '../../compute/remote/signing.ts';
import {
  claimTask,
  completeTask,
  failTask,
  heartbeatTask,
  openInput,
  type ComputeServiceDeps,
  type FileQuery,
} from '../../compute/remote/service.ts';
import { storeResult } from '../../compute/remote/upload.ts';

/**
 * The compute worker protocol, /compute/v1 (docs/compute-protocol.md). Not API-key routes:
 * calls carry a worker token, and the file URLs carry their own signature (capability URLs).
 * app.ts leaves the prefix to this file, and the file paths to their own size limit.
 */
export const COMPUTE_PREFIX = '/compute/v1/';

const FILE_PATH = /^\/compute\/v1\/tasks\/[^/]+\/files\/[^/]+$/;
export const isComputeFilePath = (path: string): boolean => FILE_PATH.test(path);

export interface ComputeRouteDeps extends ComputeServiceDeps {
  workers: WorkerTokens;
}

export function computeRoutes(deps: ComputeRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  const worker = async (c: Context<AppEnv>): Promise<WorkerIdentity> => {
    const token = bearerToken(c.req.header('authorization'));
    const found = token ? await deps.workers.verify(token) : null;
    if (found) return found;
    c.header('WWW-Authenticate', 'Bearer realm="mimic-compute"');
    throw new ApiError('AuthorizationError', 'Missing or invalid worker token: send Authorization: Bearer <worker token>');
  };
  const body = async (c: Context<AppEnv>) => ((await c.req.text()).trim() === '' ? {} : jsonBody(c));
  const fileQuery = (c: Context<AppEnv>): FileQuery => ({ lease: c.req.query('lease'), expires: c.req.query('expires'), signature: c.req.query('signature') });
  const fileName = (c: Context<AppEnv>): string => {
    const name = c.req.param('name') ?? '';
    if (!isFileName(name)) throw new ApiError('NotFoundError', 'The task has no such file');
    return name;
  };

  app.post('/compute/v1/claim', async (c) => {
    const w = await worker(c);
    const input = validate(ClaimBody, await body(c), 'request body', 'ValidationError');
    const task = await claimTask(deps, w, input, c.req.raw.signal);
    return task ? c.json(task) : c.body(null, 204);
  });

  app.post('/compute/v1/tasks/:id/heartbeat', async (c) => {
    const w = await worker(c);
    const input = validate(HeartbeatBody, await jsonBody(c), 'request body', 'ValidationError');
    return c.json(await heartbeatTask(deps, w, c.req.param('id'), input));
  });

  app.post('/compute/v1/tasks/:id/complete', async (c) => {
    const w = await worker(c);
    const input = validate(CompleteBody, await jsonBody(c), 'request body', 'ValidationError');
    return c.json(await completeTask(deps, w, c.req.param('id'), input));
  });

  app.post('/compute/v1/tasks/:id/fail', async (c) => {
    const w = await worker(c);
    const input = validate(FailBody, await jsonBody(c), 'request body', 'ValidationError');
    return c.json(await failTask(deps, w, c.req.param('id'), input));
  });

  // Hono answers HEAD with this handler too (and drops the body).
  app.get('/compute/v1/tasks/:id/files/:name', async (c) => {
    const file = await openInput(deps, c.req.param('id'), fileName(c), fileQuery(c));
    const headers = {
      'content-type': file.contentType,
      'content-length': String(file.size),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    };
    if (c.req.method === 'HEAD' || file.size === 0) return c.body(null, 200, headers);
    return c.body(Readable.toWeb(createReadStream(file.path)) as ReadableStream<Uint8Array>, 200, headers);
  });

  app.put('/compute/v1/tasks/:id/files/:name', async (c) => {
    await storeResult(deps, c.req.param('id'), fileName(c), fileQuery(c), c.req.raw.body, c.req.header('content-length'));
    return c.body(null, 204);
  });

  return app;
}
