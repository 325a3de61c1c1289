/**
 * Live streams rendered by remote workers (docs/compute-protocol.md, "Live streams"). Opening
 * a stream queues a `stream.render` task; the worker that claims it connects the task's
 * signed stream socket (`/compute/v1/stream`) and, over it, prepares the face (`opened`, or
 * `error` with a render error kind), then receives `start`, `speak`, `interrupt` and `close`
 * as JSON, and sends back the stream's RTP packets as binary messages (first byte 1 video,
 * 2 audio) and its events as JSON. The peer (src/streams/) sees a StreamRenderer like the
 * local one. A stream lives in the API process that opened it: the worker's socket must
 * reach that process (one API process, or sticky routing by the `task` query parameter).
 */
import { RenderError, RENDER_ERROR_KINDS, type RenderErrorKind } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Clock } from '../../clock.ts';
import type { StreamEvent, StreamMediaSink, StreamOpenRequest, StreamRenderSession, StreamRenderer } from '../stream.ts';
import { verifyFileUrl } from './signing.ts';
import { PACKET_AUDIO, PACKET_VIDEO } from './protocol.ts';
import type { ComputeTasks } from './task-store.ts';
import { streamRender } from '../tasks/stream-render.ts';
import { localComputeFiles, type ComputeFiles } from './files.ts';

export const STREAM_SOCKET_PATH = '/compute/v1/stream';
/** The largest message a worker may send: one RTP packet and its byte, or an event. */
const MAX_WORKER_MESSAGE = 64 * 1024;
/** How long closing a stream waits for the worker's done of a script it interrupted. */
const CLOSE_DONE_WAIT_MS = 2000;
/** Commands queued for a slow worker beyond this many bytes: the stream is failing, not waiting. */
const MAX_BUFFERED = 8 * 1024 * 1024;

export interface RemoteStreamOptions {
  tasks: ComputeTasks;
  /** deriveKey(master, 'compute-url'): the stream socket's URL is signed like a task's file URLs. */
  urlKey: Buffer;
  clock: Clock;
  log: Logger;
  /** How long `open` waits for a worker to take the task and prepare the face (MIMIC_COMPUTE_STREAM_WAIT_MS). */
  waitMs: number;
  /** Where the task's inputs live for its worker (default: this machine's files). */
  files?: ComputeFiles;
}

/**
 * One worker's open stream socket, as the server that accepts it hands it over (the
 * platform's ClientSocket has this shape and more).
 */
export interface WorkerSocket {
  /** Sends one text frame; false when the socket is no longer open. */
  send(text: string): boolean;
  /** Bytes queued and not yet sent. */
  buffered(): number;
  close(code: number, reason: string): void;
  /** Called once when the socket closes, whoever closed it. */
  onClose(listener: () => void): void;
}

/**
 * The workers' stream socket endpoint, without its transport: the workers capability
 * (src/workers/module.ts) serves it as a WebSocket route at `path`.
 */
export interface WorkerStreamSocket {
  path: string;
  /** Largest message a worker may send, in bytes. */
  maxMessageBytes: number;
  /** Checks the socket URL's signature and lease: the grant, or null (401). */
  authorize(url: URL): Promise<StreamGrant | null>;
  open(socket: WorkerSocket, grant: StreamGrant): void;
  message(socket: WorkerSocket, grant: StreamGrant, text: string): void;
  binary(socket: WorkerSocket, grant: StreamGrant, data: Buffer): void;
}

export interface RemoteStreamRenderer extends StreamRenderer {
  /** The workers' stream socket; the workers capability serves it. */
  readonly socket: WorkerStreamSocket;
  /** Streams waiting for their worker or streaming. */
  count(): number;
}

/** A worker's socket, once its signed URL checked out: the task and lease it is for. */
export interface StreamGrant {
  taskId: string;
  lease: string;
}

/** Worker → service messages (text). */
type WorkerMessage =
  | { type: 'opened'; width: number; height: number }
  | { type: 'error'; kind?: string; description?: string; video_id?: string }
  | { type: 'ready' }
  | { type: 'started'; video_id: string }
  | { type: 'done'; video_id: string; spoken_ms: number; interrupted: boolean };

interface Pending {
  /** Scripts started and not done: closing waits briefly for their done (what was heard is charged). */
  playing: Set<string>;
  sink: StreamMediaSink;
  onEvent: (e: StreamEvent) => void;
  socket?: WorkerSocket;
  opened?: (size: { width: number; height: number }) => void;
  /** Called on each done while close() waits for the scripts in play. */
  settled?: () => void;
  failed?: (err: Error) => void;
  closed: boolean;
}

const isRenderKind = (kind: unknown): kind is RenderErrorKind => typeof kind === 'string' && (RENDER_ERROR_KINDS as readonly string[]).includes(kind);

function parse(text: string): WorkerMessage | null {
  try {
    const m = JSON.parse(text) as WorkerMessage;
    return m && typeof m === 'object' && typeof m.type === 'string' ? m : null;
  } catch {
    return null;
  }
}

export const isRemoteStreamRenderer = (r: StreamRenderer | undefined): r is RemoteStreamRenderer => r?.name === 'remote' && 'socket' in r;

export function createRemoteStreamRenderer(opts: RemoteStreamOptions): RemoteStreamRenderer {
  const { tasks, log } = opts;
  const files = opts.files ?? localComputeFiles;
  /** By task id. */
  const streams = new Map<string, Pending>();

  function handle(p: Pending, m: WorkerMessage): void {
    switch (m.type) {
      case 'opened':
        if (Number.isInteger(m.width) && Number.isInteger(m.height) && m.width > 0 && m.height > 0) p.opened?.({ width: m.width, height: m.height });
        else p.failed?.(new Error('the compute worker sent a frame size that is not one'));
        return;
      case 'error': {
        const kind = isRenderKind(m.kind) ? m.kind : undefined;
        const description = String(m.description ?? 'the compute worker failed').slice(0, 1000);
        if (p.failed) return p.failed(kind ? new RenderError(kind, description) : new Error(`the compute worker failed: ${description}`));
        return p.onEvent({ type: 'error', kind: kind ?? 'StreamError', description, ...(typeof m.video_id === 'string' ? { videoId: m.video_id } : {}) });
      }
      case 'ready':
        return p.onEvent({ type: 'ready' });
      case 'started':
        if (typeof m.video_id === 'string') {
          p.playing.add(m.video_id);
          p.onEvent({ type: 'started', videoId: m.video_id });
        }
        return;
      case 'done':
        if (typeof m.video_id === 'string') p.playing.delete(m.video_id);
        p.settled?.();
        if (typeof m.video_id === 'string') p.onEvent({ type: 'done', videoId: m.video_id, spokenMs: Math.max(0, Number(m.spoken_ms) || 0), interrupted: m.interrupted === true });
        return;
    }
  }

  const socket: WorkerStreamSocket = {
    path: STREAM_SOCKET_PATH,
    maxMessageBytes: MAX_WORKER_MESSAGE,
    async authorize(url) {
      const taskId = url.searchParams.get('task') ?? '';
      const lease = url.searchParams.get('lease') ?? undefined;
      const check = verifyFileUrl({
        key: opts.urlKey, taskId, name: 'stream', method: 'GET', lease,
        expires: url.searchParams.get('expires') ?? undefined, signature: url.searchParams.get('signature') ?? undefined, now: opts.clock.now(),
      });
      if (check !== 'ok' || !lease) return null;
      return (await tasks.current(taskId, lease)) ? { taskId, lease } : null;
    },
    open(ws, grant) {
      const p = streams.get(grant.taskId);
      if (!p || p.closed || p.socket) return ws.close(1008, 'no stream waits for this task');
      p.socket = ws;
      ws.onClose(() => {
        if (p.closed) return;
        if (p.failed) return p.failed(new Error('the compute worker closed the stream socket before the face was ready'));
        p.onEvent({ type: 'error', kind: 'StreamError', description: 'the compute worker went away' });
      });
    },
    message(ws, grant, text) {
      const p = streams.get(grant.taskId);
      const m = parse(text);
      if (!p || p.socket !== ws || !m) return;
      handle(p, m);
    },
    binary(ws, grant, data) {
      const p = streams.get(grant.taskId);
      if (!p || p.socket !== ws || data.length < 13 || p.closed) return;
      const packet = data.subarray(1);
      if (data[0] === PACKET_VIDEO) p.sink.video(packet);
      else if (data[0] === PACKET_AUDIO) p.sink.audio(packet);
    },
  };

  async function open(req: StreamOpenRequest, sink: StreamMediaSink, onEvent: (e: StreamEvent) => void): Promise<StreamRenderSession> {
    const stored = streamRender.remote.store(req);
    await files.shareInputs(streamRender.kind, stored.request);
    const task = await tasks.create({ jobId: req.streamId, kind: streamRender.kind, ...stored });
    const p: Pending = { playing: new Set(), sink, onEvent, closed: false };
    streams.set(task.id, p);
    const end = async (reason: string) => {
      if (p.closed) return;
      p.closed = true;
      streams.delete(task.id);
      p.socket?.close(1000, reason.slice(0, 100));
      await tasks.cancel(task.id, reason).catch((err: Error) => log.warn('stream task cancel failed', { task_id: task.id, error: err.message }));
      await files.forget(task).catch((err: Error) => log.warn('stream task files not removed', { task_id: task.id, error: err.message }));
    };
    let size: { width: number; height: number };
    try {
      size = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no compute worker took the stream within ${Math.round(opts.waitMs / 1000)} s`)), opts.waitMs);
        p.opened = (s) => (clearTimeout(timer), resolve(s));
        p.failed = (err) => (clearTimeout(timer), reject(err));
      });
    } catch (err) {
      await end('the stream could not open');
      throw err;
    } finally {
      delete p.opened;
      delete p.failed;
    }
    const command = (m: object) => {
      const ws = p.socket;
      if (p.closed || !ws) return;
      if (ws.buffered() > MAX_BUFFERED) {
        onEvent({ type: 'error', kind: 'StreamError', description: 'the compute worker does not keep up' });
        return;
      }
      ws.send(JSON.stringify(m));
    };
    return {
      width: size.width,
      height: size.height,
      async start(o) {
        command({ type: 'start', codec: o.codec, fluent: o.fluent, warmup: o.warmup });
      },
      speak(s) {
        const pcm = Buffer.from(s.pcm.buffer, s.pcm.byteOffset, s.pcm.byteLength).toString('base64');
        command({ type: 'speak', video_id: s.videoId, sample_rate: s.sampleRate, cues: s.cues, last: s.last, pcm });
      },
      interrupt() {
        command({ type: 'interrupt' });
      },
      async close() {
        // A script in play is interrupted first, and its done (the time heard) awaited a moment.
        if (p.playing.size > 0 && p.socket && !p.closed) {
          command({ type: 'interrupt' });
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, CLOSE_DONE_WAIT_MS);
            p.settled = () => p.playing.size === 0 && (clearTimeout(timer), resolve());
          });
        }
        command({ type: 'close' });
        await end('the stream ended');
      },
    };
  }

  return {
    name: 'remote',
    socket,
    count: () => streams.size,
    open,
    async close() {
      await Promise.all([...streams.entries()].map(async ([taskId, p]) => {
        p.closed = true;
        streams.delete(taskId);
        p.failed?.(new Error('the service is stopping'));
        p.socket?.close(1001, 'server shutting down');
        await tasks.cancel(taskId, 'the service is stopping').catch(() => false);
      }));
    },
  };
}
