/**
 * The local stream renderer: live streams rendered on the CPU in one long-lived render
 * process of their own (separate from the batch renders' process, so a stream never waits
 * behind a clip), serving every open stream. The caller's event loop only relays messages:
 * requests out, packets and events back (batched, one IPC message per turn of the render
 * process's loop). See docs/streams-engine.md.
 */
import type { ChildProcess } from 'node:child_process';
import { RenderError } from '../../../errors.ts';
import type {
  StreamEvent, StreamMediaSink, StreamOpenRequest, StreamRenderSession, StreamRenderer, StreamSpeech, StreamStartOptions,
} from '../../stream.ts';
import { forkRenderProcess, type LocalBackendOptions } from '../index.ts';
import type { StreamChildMessage, StreamParentMessage, StreamStats } from './protocol.ts';


export interface LocalStreamRenderer extends StreamRenderer {
  /** Sessions and ffmpeg processes in the render process (zeros when it is not running). */
  stats(): Promise<StreamStats>;
  warm(): Promise<void>;
}

interface Open {
  sink: StreamMediaSink;
  onEvent: (e: StreamEvent) => void;
}

const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export function createLocalStreamRenderer(opts: LocalBackendOptions = {}): LocalStreamRenderer {
  let child: ChildProcess | undefined;
  let nextId = 1;
  let nextSid = 1;
  let closed = false;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const sessions = new Map<number, Open>();

  /** An idle render process (no session open) must not keep the caller alive. */
  const holdChild = () => {
    if (!child) return;
    if (sessions.size > 0 || pending.size > 0) { child.ref(); child.channel?.ref(); } else { child.channel?.unref(); child.unref(); }
  };

  const onMessage = (raw: unknown) => {
    const m = raw as StreamChildMessage;
    if (m.type === 'output') {
      for (const item of m.items) {
        const s = sessions.get(item.sid);
        if (!s) continue;
        if ('video' in item) s.sink.video(asBuffer(item.video));
        else if ('audio' in item) s.sink.audio(asBuffer(item.audio));
        else s.onEvent(item.event);
      }
      return;
    }
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    holdChild();
    if (m.ok) p.resolve(m.value);
    else p.reject(m.error.renderKind ? new RenderError(m.error.renderKind, m.error.message) : new Error(`stream render failed: ${m.error.message}`));
  };

  const spawnChild = (): ChildProcess => {
    const c = forkRenderProcess(import.meta.url, 'child', opts.execArgv);
    c.on('message', onMessage);
    c.on('exit', (code, signal) => {
      if (child !== c) return;
      child = undefined;
      const why = `the stream render process exited (code ${code}, signal ${signal})`;
      for (const [id, p] of pending) { pending.delete(id); p.reject(new Error(why)); }
      for (const [sid, s] of sessions) {
        sessions.delete(sid);
        s.onEvent({ type: 'error', kind: 'UnknownError', description: why });
      }
    });
    return c;
  };

  const request = <T>(m: StreamParentMessage & { id: number }): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (closed) return reject(new Error('the local stream renderer is closed'));
      const c = (child ??= spawnChild());
      pending.set(m.id, { resolve: resolve as (v: unknown) => void, reject });
      holdChild();
      c.send(m);
    });

  const post = (m: StreamParentMessage) => {
    if (child && child.connected) child.send(m);
  };

  return {
    name: 'local',
    async open(req: StreamOpenRequest, sink: StreamMediaSink, onEvent: (e: StreamEvent) => void): Promise<StreamRenderSession> {
      const sid = nextSid++;
      const size = await request<{ width: number; height: number }>({ type: 'open', id: nextId++, sid, req });
      let state: 'open' | 'started' | 'closed' = 'open';
      sessions.set(sid, { sink, onEvent });
      holdChild();
      const session: StreamRenderSession = {
        width: size.width,
        height: size.height,
        async start(o: StreamStartOptions) {
          if (state !== 'open') throw new Error(state === 'closed' ? 'the stream session is closed' : 'the stream was started already');
          state = 'started';
          await request({ type: 'start', id: nextId++, sid, opts: o });
        },
        speak(speech: StreamSpeech) {
          if (state !== 'closed') post({ type: 'speak', sid, speech });
        },
        interrupt() {
          if (state !== 'closed') post({ type: 'interrupt', sid });
        },
        async close() {
          if (state === 'closed') return;
          state = 'closed';
          try {
            if (child) await request({ type: 'close', id: nextId++, sid });
          } catch {
            // The render process is gone: so are the session's encoders.
          } finally {
            sessions.delete(sid);
            holdChild();
          }
        },
      };
      return session;
    },
    async warm() {
      await request({ type: 'warm', id: nextId++ });
    },
    async stats() {
      if (!child) return { sessions: 0, ffmpeg: 0 };
      return request<StreamStats>({ type: 'stats', id: nextId++ });
    },
    async close() {
      closed = true;
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      // Closing is not a failure: the sessions end without an error event.
      child = undefined;
      sessions.clear();
      for (const [id, p] of pending) { pending.delete(id); p.reject(new Error('the local stream renderer is closed')); }
      c.ref();
      // SIGTERM lets the render process stop its ffmpeg processes; SIGKILL if it does not exit soon.
      c.kill('SIGTERM');
      const force = setTimeout(() => c.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(force);
    },
  };
}
