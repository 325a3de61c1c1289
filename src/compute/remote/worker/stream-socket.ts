/**
 * The worker's end of a `stream.render` task's socket (docs/compute-protocol.md, "Live streams"):
 * prepare the face, connect the signed stream socket, and stream until the service closes it.
 * The service cancels the task when the stream ends, so nothing is completed or uploaded.
 */
import { WebSocket } from 'ws';
import { RenderError } from '../../../errors.ts';
import type { StreamEvent, StreamOpenRequest, StreamRenderer, StreamRenderSession, VideoCodec } from '../../stream.ts';
import { PACKET_AUDIO, PACKET_VIDEO } from '../protocol.ts';
import type { WorkerOutcome } from '../../tasks/task.ts';

const MiB = 1024 * 1024;

export async function runStreamSocket(
  streams: StreamRenderer,
  streamUrl: string,
  open: StreamOpenRequest,
  signal: AbortSignal,
): Promise<WorkerOutcome> {
  const ws = new WebSocket(streamUrl, { maxPayload: 32 * MiB });
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
      session = await streams.open(open, { video: (p) => packet(PACKET_VIDEO, p), audio: (p) => packet(PACKET_AUDIO, p) }, onEvent);
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
