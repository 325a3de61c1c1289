/**
 * A test double of the StreamRenderer (src/compute/stream.ts) for the streams tests, while
 * the real CPU engine is built elsewhere: real encoded media (ffmpeg's test pattern and a
 * sine, VP8 or H.264 and Opus, packetised as RTP on loopback), gated the way the contract
 * says (idle frames only when fluent, a warm-up second then `ready`, frames while speaking),
 * and speech "played" for exactly the length of its PCM, from `start` on (speech handed
 * before waits, as the contract says): `started` when a script's first piece begins, `done` with the milliseconds heard after its last piece, or at once on an
 * interrupt. It counts what it holds open, so tests can prove nothing leaks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { FFMPEG_PATH } from '../../src/media/ffmpeg.ts';
import { RenderError } from '../../src/errors.ts';
import type { StreamEvent, StreamMediaSink, StreamOpenRequest, StreamRenderSession, StreamRenderer, StreamSpeech, StreamStartOptions } from '../../src/compute/stream.ts';

export interface FakeStreamRenderer extends StreamRenderer {
  opened: StreamOpenRequest[];
  started: StreamStartOptions[];
  /** Every piece handed to `speak`, as it was handed. */
  speeches: { videoId: string; ms: number; last: boolean }[];
  /** The scripts that began playing (their first piece's media went out), in order. */
  played: string[];
  /** Sessions open now, ffmpeg processes and sockets alive now. */
  live(): { sessions: number; processes: number; sockets: number };
  /** Makes the next open fail with this kind (e.g. FaceError). */
  failNextOpen?: RenderError;
  /** While set, opens wait for it (a photo still being prepared); its error fails them. */
  holdOpens?: Promise<void>;
}

const WARMUP_MS = 1000;

export function createFakeStreamRenderer(): FakeStreamRenderer {
  const sessions = new Set<StreamRenderSession>();
  const processes = new Set<ChildProcess>();
  const sockets = new Set<Socket>();
  const r: FakeStreamRenderer = {
    name: 'test-double',
    opened: [],
    started: [],
    speeches: [],
    played: [],
    live: () => ({ sessions: sessions.size, processes: processes.size, sockets: sockets.size }),
    async open(req, sink, onEvent) {
      if (r.holdOpens) await r.holdOpens;
      if (r.failNextOpen) {
        const err = r.failNextOpen;
        delete r.failNextOpen;
        throw err;
      }
      if (!existsSync(req.sourcePath)) throw new RenderError('SourceError', 'the picture is not there');
      r.opened.push(req);
      const session = openSession(sink, onEvent, { processes, sockets, record: r }, () => sessions.delete(session));
      sessions.add(session);
      return session;
    },
    async close() {
      await Promise.all([...sessions].map((s) => s.close()));
    },
  };
  return r;
}

interface Playing {
  videoId: string;
  /** When the piece now playing began, and the ms heard of the script before it. */
  pieceStart: number;
  heardBefore: number;
  pieceMs: number;
  pending: StreamSpeech[];
  ended: boolean;
  timer?: NodeJS.Timeout;
}

function openSession(
  sink: StreamMediaSink,
  emit: (e: StreamEvent) => void,
  held: { processes: Set<ChildProcess>; sockets: Set<Socket>; record: FakeStreamRenderer },
  forget: () => void,
): StreamRenderSession {
  let closed = false;
  let started = false;
  let fluent = false;
  let warming = false;
  let proc: ChildProcess | undefined;
  const socks: Socket[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const queue: StreamSpeech[] = [];
  let playing: Playing | undefined;
  const seq = { video: 0, audio: 0 };
  const flowing = () => !closed && (fluent || warming || playing !== undefined);

  const later = (ms: number, fn: () => void): NodeJS.Timeout => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
    return t;
  };

  const forward = (kind: 'video' | 'audio') => (packet: Buffer) => {
    if (!flowing()) return;
    // Sequence numbers stay continuous across pauses; timestamps jump (the contract's rules).
    packet.writeUInt16BE(seq[kind]++ & 0xffff, 2);
    sink[kind](packet);
  };

  async function bind(kind: 'video' | 'audio'): Promise<number> {
    const s = createSocket('udp4');
    socks.push(s);
    held.sockets.add(s);
    s.on('message', forward(kind));
    s.on('close', () => held.sockets.delete(s));
    await new Promise<void>((res) => s.bind(0, '127.0.0.1', res));
    return (s.address() as AddressInfo).port;
  }

  function beginNext(): void {
    if (playing || closed || !started) return;
    const next = queue.shift();
    if (!next) return;
    const rest = queue.filter((q) => q.videoId === next.videoId);
    queue.splice(0, queue.length, ...queue.filter((q) => q.videoId !== next.videoId));
    playing = { videoId: next.videoId, pieceStart: Date.now(), heardBefore: 0, pieceMs: 0, pending: [next, ...rest], ended: false };
    held.record.played.push(next.videoId);
    emit({ type: 'started', videoId: next.videoId });
    playPiece();
  }

  function playPiece(): void {
    const p = playing;
    if (!p || closed) return;
    const piece = p.pending.shift();
    if (!piece) return; // waiting for the script's next piece
    p.pieceStart = Date.now();
    p.pieceMs = (piece.pcm.length / piece.sampleRate) * 1000;
    p.timer = later(p.pieceMs, () => {
      p.heardBefore += p.pieceMs;
      p.pieceMs = 0;
      p.timer = undefined;
      if (piece.last) {
        playing = undefined;
        emit({ type: 'done', videoId: p.videoId, spokenMs: Math.round(p.heardBefore), interrupted: false });
        beginNext();
      } else playPiece();
    });
  }

  const session: StreamRenderSession = {
    width: 320,
    height: 240,
    async start(opts) {
      held.record.started.push(opts);
      started = true;
      fluent = opts.fluent;
      const [vport, aport] = [await bind('video'), await bind('audio')];
      const video = opts.codec === 'vp8'
        ? ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '300k', '-g', '10']
        : ['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-g', '10'];
      proc = spawn(FFMPEG_PATH, [
        '-hide_banner', '-nostdin', '-v', 'error',
        '-re', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25',
        '-re', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
        '-map', '0:v', ...video, '-f', 'rtp', `rtp://127.0.0.1:${vport}?pkt_size=1100`,
        '-map', '1:a', '-c:a', 'libopus', '-b:a', '32k', '-f', 'rtp', `rtp://127.0.0.1:${aport}?pkt_size=1100`,
      ], { stdio: 'ignore' });
      held.processes.add(proc);
      proc.once('exit', () => held.processes.delete(proc!));
      if (opts.warmup) {
        warming = true;
        later(WARMUP_MS, () => {
          warming = false;
          if (!closed) emit({ type: 'ready' });
        });
      }
      // Speech handed before the start plays now.
      beginNext();
    },
    speak(speech) {
      if (closed) return;
      held.record.speeches.push({ videoId: speech.videoId, ms: (speech.pcm.length / speech.sampleRate) * 1000, last: speech.last });
      if (playing && playing.videoId === speech.videoId && !playing.ended) {
        playing.pending.push(speech);
        if (!playing.timer) playPiece();
        return;
      }
      // A new script (or a later piece of a queued one) waits behind what is playing.
      queue.push(speech);
      beginNext();
    },
    interrupt() {
      queue.length = 0;
      const p = playing;
      if (!p) return;
      if (p.timer) {
        clearTimeout(p.timer);
        timers.delete(p.timer);
      }
      const heard = p.heardBefore + (p.pieceMs > 0 ? Math.min(p.pieceMs, Date.now() - p.pieceStart) : 0);
      playing = undefined;
      emit({ type: 'done', videoId: p.videoId, spokenMs: Math.round(heard), interrupted: true });
    },
    async close() {
      if (closed) return;
      // As the contract says: a script still playing ends with its done (interrupted), so what was heard is charged.
      this.interrupt();
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      if (proc && proc.exitCode === null) {
        const exited = new Promise((res) => proc!.once('exit', res));
        proc.kill('SIGKILL');
        await exited;
      }
      await Promise.all(socks.map((s) => new Promise<void>((res) => s.close(() => res()))));
      forget();
    },
  };
  return session;
}
