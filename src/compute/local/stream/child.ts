/**
 * The stream render process: runs the stream engine for every open stream of one
 * `createLocalStreamRenderer`, and sends their packets and events back over IPC, batched
 * per turn of its event loop. Face models load once, on the first open.
 */
import { RenderError } from '../../../errors.ts';
import type { StreamRenderSession } from '../../stream.ts';
import { activeProcesses } from '../../../media/ffmpeg.ts';
import { createStreamEngine } from './engine.ts';
import type { StreamChildMessage, StreamOutput, StreamParentMessage } from './protocol.ts';

const send = (m: StreamChildMessage) => process.send?.(m);
const engine = createStreamEngine();
const sessions = new Map<number, StreamRenderSession>();

let batch: StreamOutput[] = [];
const out = (item: StreamOutput) => {
  if (batch.length === 0) setImmediate(flush);
  batch.push(item);
};
function flush(): void {
  const items = batch;
  batch = [];
  if (items.length > 0) send({ type: 'output', items });
}

const failure = (id: number, err: unknown): StreamChildMessage => {
  const e = err instanceof Error ? err : new Error(String(err));
  return { type: 'reply', id, ok: false, error: { message: e.message, ...(err instanceof RenderError ? { renderKind: err.kind } : {}) } };
};

async function handle(m: StreamParentMessage): Promise<void> {
  switch (m.type) {
    case 'open': {
      try {
        const s = await engine.open(m.req, {
          video: (p) => out({ sid: m.sid, video: p }),
          audio: (p) => out({ sid: m.sid, audio: p }),
        }, (event) => out({ sid: m.sid, event }));
        sessions.set(m.sid, s);
        send({ type: 'reply', id: m.id, ok: true, value: { width: s.width, height: s.height } });
      } catch (err) {
        send(failure(m.id, err));
      }
      return;
    }
    case 'start': {
      const s = sessions.get(m.sid);
      try {
        if (!s) throw new Error('no such stream session');
        await s.start(m.opts);
        send({ type: 'reply', id: m.id, ok: true });
      } catch (err) {
        send(failure(m.id, err));
      }
      return;
    }
    case 'speak': sessions.get(m.sid)?.speak(m.speech); return;
    case 'interrupt': sessions.get(m.sid)?.interrupt(); return;
    case 'close': {
      const s = sessions.get(m.sid);
      sessions.delete(m.sid);
      await s?.close();
      // What the session said before it closed goes out before the answer.
      flush();
      send({ type: 'reply', id: m.id, ok: true });
      return;
    }
    case 'warm': {
      try {
        await engine.warm();
        send({ type: 'reply', id: m.id, ok: true });
      } catch (err) {
        send(failure(m.id, err));
      }
      return;
    }
    case 'stats': send({ type: 'reply', id: m.id, ok: true, value: { sessions: sessions.size, ffmpeg: activeProcesses.size, pid: process.pid, frames: engine.frames() } });
  }
}

process.on('message', (raw) => {
  // A bad request (speech at an impossible rate) must not end the process and every stream in it.
  handle(raw as StreamParentMessage).catch((err: unknown) => console.error('stream render process:', err instanceof Error ? err.message : err));
});

const stop = () => {
  for (const p of activeProcesses) p.kill('SIGKILL');
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
