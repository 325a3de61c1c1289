/**
 * A compute worker: claims tasks from a mimic service over the worker protocol
 * (docs/compute-protocol.md), renders them with a ComputeBackend (the `worker` command uses
 * the local CPU renderer), and reports back. One task at a time.
 */
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isIP } from 'node:net';
import { RenderError } from '../../errors.ts';
import { createGuardedClient, type GuardedClient } from '../../egress/client.ts';
import type { Logger } from '../../log.ts';
import { validate } from '../../schemas/ajv.ts';
import { ClaimedTask, WORKER_FAIL_KINDS } from '../../schemas/compute.ts';
import { TRAIN_OUTPUT_FILES, type BackgroundInput, type ComputeBackend, type DriverInput, type LogoInput, type RenderRequest } from '../interface.ts';
import { extensionOfType } from './protocol.ts';
import { TASK_KINDS, TRAIN_TASK_KIND } from '../kinds.ts';
import type { StreamEvent, StreamRenderer, StreamRenderSession, VideoCodec } from '../stream.ts';
import { PACKET_AUDIO, PACKET_VIDEO, STREAM_TASK_KIND } from './stream.ts';
import { WebSocket } from 'ws';

export interface RemoteWorkerOptions {
  /** The service's base URL, as its operator publishes it (MIMIC_PUBLIC_URL). */
  server: string;
  token: string;
  backend: ComputeBackend;
  /** Renders live streams (`stream.render` tasks); absent: the worker claims no streams. */
  streams?: StreamRenderer;
  /** Shown in the task table and logs; several processes may share one token under different names. */
  name?: string;
  /** Handle one task, then return. */
  once?: boolean;
  /** Stop: claim nothing more, abort the running render and give its task back (fail without kind). */
  signal?: AbortSignal;
  /** Default: a guarded client that may reach the server's host only. */
  client?: GuardedClient;
  log: Logger;
  /** Long-poll length of a claim (ms). */
  waitMs?: number;
}

export interface WorkerSummary {
  completed: number;
  failed: number;
  lost: number;
}

/** The service refused the worker's token (401): nothing a retry can fix. */
export class WorkerAuthError extends Error {}

const VERSION = '0.1.0';
const MiB = 1024 * 1024;
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The server's base URL. http is accepted for loopback only: anywhere else the token would
 * cross the network in clear text.
 */
export function parseServerUrl(raw: string): { url: URL; base: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`--server must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('--server must be an https URL');
  if (url.username || url.password || url.search || url.hash) throw new Error('--server must not carry credentials, a query or a fragment');
  const loopback = LOOPBACK_NAMES.has(url.hostname) || (isIP(url.hostname) === 4 && url.hostname.startsWith('127.'));
  if (url.protocol === 'http:' && !loopback) throw new Error('--server must be https (plain http is accepted for loopback addresses only)');
  return { url, base: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/** The guarded client of a worker: the server's host is the one private address it may reach (its operator named it). */
export function workerClient(server: URL): GuardedClient {
  return createGuardedClient({ allow: [server.hostname.replace(/^\[|\]$/g, '')], defaultTimeoutMs: 30_000, defaultMaxBytes: 4 * MiB, userAgent: `mimic-worker/${VERSION}` });
}

const isClaimedTask = (value: unknown): value is ClaimedTask => {
  try {
    validate(ClaimedTask, value);
    return true;
  } catch {
    return false;
  }
};
const FAIL_KINDS = new Set<string>(WORKER_FAIL_KINDS);

/** A task with render parameters and a result slot: every kind but avatar.train. */
type RenderTask = ClaimedTask & { render: NonNullable<ClaimedTask['render']>; result: NonNullable<ClaimedTask['result']> };
const isRenderTask = (task: ClaimedTask): task is RenderTask => task.render !== undefined && task.result !== undefined;
const backoffMs = (failures: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));

/** A call the service answered 409: the task is no longer ours. */
class TaskLost extends Error {
  constructor(readonly reason: string) {
    super(`task lost: ${reason}`);
  }
}

export async function runRemoteWorker(opts: RemoteWorkerOptions): Promise<WorkerSummary> {
  const { url: server, base } = parseServerUrl(opts.server);
  const client = opts.client ?? workerClient(server);
  const { log, backend } = opts;
  const stop = opts.signal ?? new AbortController().signal;
  const waitMs = opts.waitMs ?? 20_000;
  const summary: WorkerSummary = { completed: 0, failed: 0, lost: 0 };
  const stopped = new Promise<'stopped'>((resolve) => (stop.aborted ? resolve('stopped') : stop.addEventListener('abort', () => resolve('stopped'), { once: true })));

  async function call(path: string, body: unknown, timeoutMs = 30_000): Promise<{ status: number; json: any }> {
    const res = await client.request(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      timeoutMs,
      maxBytes: MiB,
    });
    if (res.status === 401) throw new WorkerAuthError('the service refused the worker token (401): it is wrong or was revoked');
    let json: unknown = null;
    try {
      json = res.body.length ? JSON.parse(res.body.toString('utf8')) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, json };
  }

  const sleep = (ms: number) => Promise.race([new Promise((r) => setTimeout(r, ms).unref()), stopped]);

  async function claim(): Promise<ClaimedTask | null | 'stopped'> {
    const pending = call('/compute/v1/claim', { worker: { name: opts.name, version: VERSION, backend: backend.name }, wait_ms: waitMs, kinds: Object.keys(TASK_KINDS).filter((k) => k !== STREAM_TASK_KIND || opts.streams) }, waitMs + 15_000);
    const res = await Promise.race([pending, stopped]);
    if (res === 'stopped') {
      // The claim may still bring a task: give it straight back so another worker takes it.
      pending.then((late) => (late.status === 200 && late.json?.lease ? giveBack(late.json) : undefined)).catch(() => undefined);
      return 'stopped';
    }
    if (res.status === 204) return null;
    if (res.status !== 200) throw new Error(`claim answered HTTP ${res.status}`);
    if (!isClaimedTask(res.json)) {
      if (res.json?.task_id && res.json?.lease) await giveBack(res.json, 'the worker could not read the task');
      throw new Error('the claimed task does not have the protocol shape');
    }
    return res.json;
  }

  async function giveBack(task: { task_id: string; lease: string }, description = 'the worker is shutting down') {
    await call(`/compute/v1/tasks/${encodeURIComponent(task.task_id)}/fail`, { lease: task.lease, description }).catch(() => undefined);
  }

  let failures = 0;
  while (!stop.aborted) {
    let task: ClaimedTask | null | 'stopped';
    try {
      task = await claim();
      failures = 0;
    } catch (err) {
      if (err instanceof WorkerAuthError) throw err;
      failures++;
      log.warn('claim failed', { error: (err as Error).message, retry_in_ms: backoffMs(failures) });
      await sleep(backoffMs(failures));
      continue;
    }
    if (task === 'stopped') break;
    if (task === null) continue;
    const outcome = await runTask(task);
    summary[outcome]++;
    if (opts.once) break;
  }
  return summary;

  async function runTask(task: ClaimedTask): Promise<keyof WorkerSummary> {
    const taskPath = `/compute/v1/tasks/${encodeURIComponent(task.task_id)}`;
    const fields = { task_id: task.task_id, attempt: task.attempt };
    log.info('task claimed', fields);
    const started = performance.now();
    const controller = new AbortController();
    const onStop = () => controller.abort(new Error('the worker is shutting down'));
    stop.addEventListener('abort', onStop, { once: true });
    let lost: string | null = null;
    let progress: { done: number; total: number } | undefined;
    let beating = false;
    const loseTask = (reason: string) => {
      lost ??= reason;
      controller.abort(new TaskLost(reason));
    };
    const beat = async () => {
      if (beating || lost) return;
      beating = true;
      try {
        const res = await call(`${taskPath}/heartbeat`, { lease: task.lease, ...(progress ? { progress } : {}) }, 10_000);
        if (res.status === 409) loseTask(String(res.json?.details?.reason ?? 'lease_lost'));
      } catch (err) {
        if (err instanceof WorkerAuthError) loseTask('token_refused');
        // A network failure: the next beat tries again (the lease may run out meanwhile).
      } finally {
        beating = false;
      }
    };
    const heartbeat = setInterval(() => void beat(), Math.max(100, Math.floor(task.lease_ms / 3)));
    const dir = await mkdtemp(join(tmpdir(), 'mimic-worker-'));
    const checkpoint = () => {
      if (controller.signal.aborted) throw controller.signal.reason;
    };
    const ms = (t: number) => Math.round(t);
    const complete = async (body: object) => {
      const res = await call(`${taskPath}/complete`, { lease: task.lease, ...body });
      if (res.status === 409) throw new TaskLost(String(res.json?.details?.reason ?? 'lease_lost'));
      if (res.status !== 200) throw new Error(`complete answered HTTP ${res.status}${res.json?.description ? `: ${res.json.description}` : ''}`);
    };
    try {
      if (task.kind === TRAIN_TASK_KIND) {
        const times = await runTrain(task, dir, controller.signal, checkpoint, (p) => (progress = p), complete);
        log.info('task done', { ...fields, download_ms: ms(times.downloaded - started), render_ms: ms(times.trained - times.downloaded), upload_ms: ms(performance.now() - times.trained) });
        return 'completed';
      }
      if (!isRenderTask(task)) throw new Error('the task carries no render parameters');
      const inputs = await downloadInputs(task, dir, checkpoint);
      const downloaded = performance.now();
      if (task.kind === STREAM_TASK_KIND) {
        const outcome = await runStream(task, inputs, dir, controller.signal);
        log.info('stream ended', { ...fields, outcome, streamed_ms: Math.round(performance.now() - downloaded) });
        return outcome;
      }
      const outputPath = join(dir, `result.${task.render.result_format}`);
      const req: RenderRequest = {
        jobId: task.task_id,
        ...inputs,
        ...(task.render.face ? { face: { size: task.render.face.size, top_left: [task.render.face.top_left[0]!, task.render.face.top_left[1]!] } } : {}),
        resultFormat: task.render.result_format,
        mute: task.render.mute,
        stitch: task.render.stitch,
        maxAnimatedFaces: task.render.max_animated_faces,
        outputPath,
        workDir: dir,
        signal: controller.signal,
        onProgress: (done, total) => (progress = { done, total }),
      };
      const result = await backend.render(req);
      const rendered = performance.now();
      checkpoint();
      sameOrigin(task.result.upload_url);
      await client.upload(task.result.upload_url, outputPath, { contentType: task.result.content_type, timeoutMs: 300_000 });
      checkpoint();
      await complete({ metadata: result.metadata, face_ids: result.faceIds, render_ms: Math.round(rendered - downloaded) });
      log.info('task done', { ...fields, download_ms: ms(downloaded - started), render_ms: ms(rendered - downloaded), upload_ms: ms(performance.now() - rendered) });
      return 'completed';
    } catch (err) {
      if (err instanceof TaskLost || lost) {
        log.info('task lost', { ...fields, reason: lost ?? (err as TaskLost).reason });
        return 'lost';
      }
      if (err instanceof WorkerAuthError) throw err;
      const inputFault = err instanceof RenderError && FAIL_KINDS.has(err.kind);
      const body = inputFault
        ? { lease: task.lease, kind: err.kind, description: err.description }
        : { lease: task.lease, description: stop.aborted ? 'the worker is shutting down' : `worker fault: ${(err as Error).message ?? String(err)}`.slice(0, 1000) };
      const res = await call(`${taskPath}/fail`, body).catch((e: Error) => ({ status: 0, json: { description: e.message } }));
      log.warn('task failed', { ...fields, kind: inputFault ? err.kind : null, answer: res.status, error: inputFault ? undefined : (err as Error).message });
      return res.status === 409 ? 'lost' : 'failed';
    } finally {
      clearInterval(heartbeat);
      stop.removeEventListener('abort', onStop);
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * An `avatar.train` task (docs/compute-protocol.md, "Avatar training"): download the footage,
   * train with the backend, upload `reference` and `idle`, complete with the measurements.
   */
  async function runTrain(
    task: ClaimedTask,
    dir: string,
    signal: AbortSignal,
    checkpoint: () => void,
    onProgress: (p: { done: number; total: number }) => void,
    complete: (body: object) => Promise<void>,
  ): Promise<{ downloaded: number; trained: number }> {
    const t = task.train;
    const outputs = { reference: task.outputs?.reference, idle: task.outputs?.idle };
    if (!t || !outputs.reference || !outputs.idle) throw new Error('the avatar.train task lacks its parameters or outputs');
    const footagePath = await download(t.footage_url, dir, 'source', outputs.idle.max_bytes, checkpoint);
    const downloaded = performance.now();
    const outputDir = join(dir, 'out');
    await mkdir(outputDir);
    const result = await backend.train({
      jobId: task.task_id,
      footagePath,
      idle: { fromSec: t.idle.from_sec, toSec: t.idle.to_sec },
      speech: { fromSec: t.speech.from_sec, toSec: t.speech.to_sec },
      outputDir,
      workDir: dir,
      signal,
      onProgress: (done, total) => onProgress({ done, total }),
    });
    const trained = performance.now();
    for (const name of ['reference', 'idle'] as const) {
      const out = outputs[name]!;
      checkpoint();
      sameOrigin(out.upload_url);
      await client.upload(out.upload_url, join(outputDir, TRAIN_OUTPUT_FILES[name]), { contentType: out.content_type, timeoutMs: 300_000 });
    }
    checkpoint();
    await complete({
      train: { reference_sec: result.referenceSec, loop_sec: result.loopSec, size: result.size, pitch_hz: result.pitchHz },
      render_ms: Math.round(trained - downloaded),
    });
    return { downloaded, trained };
  }

  /**
   * A `stream.render` task: prepare the face, connect the task's stream socket, and stream
   * until the service closes it (docs/compute-protocol.md, "Live streams"). The service
   * cancels the task when the stream ends, so nothing is completed or uploaded.
   */
  async function runStream(task: RenderTask, inputs: Awaited<ReturnType<typeof downloadInputs>>, dir: string, signal: AbortSignal): Promise<keyof WorkerSummary> {
    const streams = opts.streams;
    if (!streams || !task.stream_url || inputs.driver.kind !== 'live') throw new Error('this worker cannot run this stream task');
    sameOrigin(task.stream_url.replace(/^ws/, 'http'));
    const ws = new WebSocket(task.stream_url, { maxPayload: 32 * MiB });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`the stream socket answered HTTP ${res.statusCode}`)));
    });
    const send = (m: object) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(m));
    const packet = (type: number, p: Buffer) => {
      // A late packet is worth nothing: a congested socket drops instead of queueing.
      if (ws.readyState === ws.OPEN && ws.bufferedAmount < 4 * MiB) ws.send(Buffer.concat([Buffer.of(type), p]));
    };
    const onEvent = (e: StreamEvent) =>
      send(
        e.type === 'started' ? { type: 'started', video_id: e.videoId }
        : e.type === 'done' ? { type: 'done', video_id: e.videoId, spoken_ms: e.spokenMs, interrupted: e.interrupted }
        : e.type === 'error' ? { type: 'error', kind: e.kind, description: e.description, ...(e.videoId ? { video_id: e.videoId } : {}) }
        : { type: 'ready' },
      );
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    let session: StreamRenderSession | undefined;
    try {
      try {
        const r = task.render;
        session = await streams.open(
          {
            streamId: task.task_id, sourcePath: inputs.sourcePath, stitch: r.stitch, seed: inputs.driver.seed, workDir: dir,
            ...(r.face ? { face: { size: r.face.size, top_left: [r.face.top_left[0]!, r.face.top_left[1]!] as [number, number] } } : {}),
            ...(inputs.background ? { background: inputs.background } : {}),
          },
          { video: (p) => packet(PACKET_VIDEO, p), audio: (p) => packet(PACKET_AUDIO, p) },
          onEvent,
        );
      } catch (err) {
        send({ type: 'error', ...(err instanceof RenderError ? { kind: err.kind, description: err.description } : { description: `worker fault: ${(err as Error).message}`.slice(0, 1000) }) });
        ws.close(1000, 'the stream could not open');
        return 'failed';
      }
      const live = session;
      send({ type: 'opened', width: live.width, height: live.height });
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        let m: { type?: string; [k: string]: unknown };
        try {
          m = JSON.parse(String(data)) as typeof m;
        } catch {
          return;
        }
        if (m.type === 'start') {
          live.start({ codec: m.codec as VideoCodec, fluent: m.fluent === true, warmup: m.warmup === true }).catch((err: Error) => onEvent({ type: 'error', kind: 'StreamError', description: err.message }));
        } else if (m.type === 'speak') {
          const bytes = Buffer.from(String(m.pcm ?? ''), 'base64');
          const pcm = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length - (bytes.length % 2)));
          live.speak({ videoId: String(m.video_id), pcm, sampleRate: Number(m.sample_rate), cues: (m.cues ?? []) as never, last: m.last === true });
        } else if (m.type === 'interrupt') live.interrupt();
        else if (m.type === 'close') ws.close(1000, 'closed by the service');
      });
      const stop = () => ws.close(1001, 'the worker is stopping');
      signal.addEventListener('abort', stop, { once: true });
      await closed;
      signal.removeEventListener('abort', stop);
      return 'completed';
    } finally {
      await session?.close();
      if (ws.readyState !== ws.CLOSED) ws.terminate();
    }
  }

  /** Every URL of a task must point at the server this worker was started against. */
  function sameOrigin(url: string): void {
    let origin = '';
    try {
      origin = new URL(url).origin;
    } catch {
      /* refused below */
    }
    if (origin !== server.origin) throw new Error(`the task names a URL outside ${server.origin}; refusing it (is --server the service's MIMIC_PUBLIC_URL?)`);
  }

  async function download(url: string, dir: string, name: string, maxBytes: number, checkpoint: () => void): Promise<string> {
    checkpoint();
    sameOrigin(url);
    const file = join(dir, name);
    const { contentType } = await client.download(url, file, { maxBytes, timeoutMs: 120_000, accept: () => true });
    const ext = extensionOfType(contentType);
    if (!ext) return file;
    await rename(file, file + ext);
    return file + ext;
  }

  async function downloadInputs(task: RenderTask, dir: string, checkpoint: () => void) {
    const r = task.render;
    const max = task.result.max_bytes;
    const sourcePath = await download(r.source_url, dir, 'source', max, checkpoint);
    const d = r.driver;
    const driver: DriverInput =
      d.kind === 'bank' ? { kind: 'bank', category: d.category, name: d.name }
      : d.kind === 'speech' ? { kind: 'speech', audioPath: await download(d.url, dir, 'driver', max, checkpoint), seed: d.seed, cues: d.cues }
      : d.kind === 'live' ? { kind: 'live', seed: d.seed }
      : { kind: 'video', path: await download(d.url, dir, 'driver', max, checkpoint) };
    const logo: LogoInput =
      r.logo.kind === 'image'
        ? { kind: 'image', path: await download(r.logo.url, dir, 'logo', max, checkpoint), position: [r.logo.position[0]!, r.logo.position[1]!] }
        : { kind: r.logo.kind };
    const overlayPath = r.overlay_url ? await download(r.overlay_url, dir, 'overlay', max, checkpoint) : undefined;
    const b = r.background ?? null;
    const background: BackgroundInput | undefined =
      b === null ? undefined
      : b.kind === 'image' ? { kind: 'image', path: await download(b.url, dir, 'background', max, checkpoint) }
      : b;
    return { sourcePath, driver, logo, ...(overlayPath ? { overlayPath } : {}), ...(background ? { background } : {}) };
  }
}
