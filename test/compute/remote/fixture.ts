/**
 * The remote backend over real HTTP: the real app (real SQLite file in a temp folder) served
 * on a loopback port, a remote backend whose render() calls the test drives, a worker token,
 * and a clock the test moves (leases and URL expiry without waiting).
 */
import { serve, type ServerType } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness, type Harness } from '../../helpers/harness.ts';
import { freePort } from '../../helpers/remote.ts';
import { SAMPLE_PORTRAIT, renderRequest } from '../../helpers/video.ts';
import type { ComputeBackend, RenderRequest, RenderResult } from '../../../src/compute/interface.ts';
import { createRemoteBackend } from '../../../src/compute/remote/backend.ts';
import type { ServiceOptions } from '../../../src/services.ts';

export const SAMPLE = SAMPLE_PORTRAIT;

export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

export function testClock(): TestClock {
  let skew = 0;
  return { now: () => Date.now() + skew, advance: (ms) => void (skew += ms) };
}

/** A few bytes that pass the container check: an ftyp box of the brand, then padding. */
export function fakeVideo(brand = 'isom', bytes = 2048): Buffer {
  const out = Buffer.alloc(bytes);
  out.writeUInt32BE(24, 0);
  out.write(`ftyp${brand}`, 4, 'latin1');
  return out;
}

export const METADATA = {
  num_frames: 125,
  processing_fps: 90.5,
  resolution: ['512', '512'],
  size_kib: 2,
  source_pose: [1.5, -2, 0.25],
  video_fps: 25,
  faces: [{ face_id: 0, detection: [10, 20, 110, 140], top_left: [5, 15], size: 130, detect_confidence: 0.97, mask_confidence: 0.9, overlap: 'no' }],
};

export interface Call {
  status: number;
  body: any;
  headers: Headers;
}

export interface Render {
  req: RenderRequest;
  controller: AbortController;
  progress: [number, number][];
  result: Promise<RenderResult>;
  /** Settles with the outcome instead of rejecting. */
  outcome: Promise<{ ok: true; value: RenderResult } | { ok: false; error: unknown }>;
}

export interface RemoteFixture {
  h: Harness;
  base: string;
  clock: TestClock;
  backend: ComputeBackend;
  token: string;
  workerId: string;
  dir: string;
  call(method: string, path: string, opts?: { token?: string | null; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> }): Promise<Call>;
  claim(body?: Record<string, unknown>, token?: string): Promise<Call>;
  render(over?: Partial<RenderRequest>): Render;
  upload(url: string, bytes: Buffer, headers?: Record<string, string>): Promise<Call>;
  /** Claims (expecting a task), uploads a valid result and completes: the happy path of one task. */
  finish(task: any, token?: string): Promise<Call>;
  close(): Promise<void>;
}

let renders = 0;

export async function remoteFixture(env: Record<string, string> = {}, opts: ServiceOptions = {}): Promise<RemoteFixture> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const clock = testClock();
  const h = harness(
    { MIMIC_COMPUTE_BACKEND: 'remote', MIMIC_PUBLIC_URL: base, MIMIC_COMPUTE_LEASE_MS: '30000', MIMIC_COMPUTE_POLL_MS: '25', MIMIC_JOB_LEASE_MS: '600', ...env },
    { clock, ...opts },
  );
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: h.app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const backend = createRemoteBackend({ tasks: h.services.compute.tasks, pollMs: 25, cancelGraceMs: 2000, files: h.services.compute.files });
  const { id: workerId, token } = await h.services.compute.workers.add('test-worker');
  const dir = mkdtempSync(join(tmpdir(), 'mimic-remote-'));

  const call: RemoteFixture['call'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const bearer = o.token === undefined ? token : o.token;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let body: string | Buffer | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(path.startsWith('http') ? path : `${base}${path}`, { method, headers, ...(body !== undefined ? { body, duplex: 'half' } : {}) } as RequestInit);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  const fixture: RemoteFixture = {
    h,
    base,
    clock,
    backend,
    token,
    workerId,
    dir,
    call,
    claim: (body = { wait_ms: 0 }, t = token) => call('POST', '/compute/v1/claim', { body, token: t }),
    render(over = {}) {
      const n = ++renders;
      const controller = new AbortController();
      const progress: [number, number][] = [];
      const req = renderRequest(dir, {
        name: `job_test_${n}`,
        logo: { kind: 'default' },
        signal: controller.signal,
        onProgress: (done, total) => progress.push([done, total]),
        ...over,
      });
      const result = backend.run('animation.render', req);
      const outcome = result.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      return { req, controller, progress, result, outcome };
    },
    upload: (url, bytes, headers = { 'content-type': 'video/mp4' }) => call('PUT', url, { raw: bytes, headers, token: null }),
    async finish(task, t = token) {
      const up = await fixture.upload(task.result.upload_url, fakeVideo(task.render.result_format === 'mov' ? 'qt  ' : 'isom'));
      if (up.status !== 204) return up;
      return call('POST', `/compute/v1/tasks/${task.task_id}/complete`, { token: t, body: { lease: task.lease, metadata: METADATA, face_ids: [0], render_ms: 1234 } });
    },
    async close() {
      await backend.close();
      const closed = new Promise<void>((r) => server.close(() => r()));
      (server as import('node:http').Server).closeAllConnections();
      await closed;
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return fixture;
}
