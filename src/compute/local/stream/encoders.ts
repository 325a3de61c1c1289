/**
 * The encoders of a live stream: ffmpeg processes that read raw frames (rgb24) or PCM (s16le
 * mono 48 kHz) on stdin and send RTP packets (`-f rtp`) to a UDP socket on 127.0.0.1 that
 * this process listens on. Each packet is matched back to the unit (frame, 20 ms of sound)
 * it came from by its RTP timestamp, so the caller can restamp it on the stream's wall clock.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import type { Readable, Writable } from 'node:stream';
import { STREAM_FPS, VIDEO_CLOCK_HZ, type VideoCodec } from '../../stream.ts';
import { FFMPEG_PATH, track } from '../../../media/ffmpeg.ts';

/** Sound is written and encoded in 20 ms frames (WebRTC's Opus packet). */
export const AUDIO_RATE = 48_000;
export const AUDIO_FRAME = 960;
/** Largest RTP packet ffmpeg writes (fits a 1280-byte MTU with SRTP and the peer's extensions). */
const PACKET_SIZE = 1100;
/** A keyframe at least this often, in frames (2 s). */
const KEYFRAME_EVERY = 2 * STREAM_FPS;

/**
 * Raw input needs no probing. Not `-fflags nobuffer`: it throws away what the probe read, the
 * first frame or block of sound, and every packet would then carry the unit after its own.
 */
const input = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-probesize', '32', '-analyzeduration', '0'];

const rtpOut = (payloadType: number, port: number) => [
  '-flush_packets', '1', '-f', 'rtp', '-rtpflags', 'skip_rtcp', '-payload_type', String(payloadType),
  `udp://127.0.0.1:${port}?pkt_size=${PACKET_SIZE}`,
];

/** ffmpeg arguments of a video encoder for `codec`, at the realtime settings WebRTC peers expect. */
export function videoArgs(codec: VideoCodec, width: number, height: number, port: number): string[] {
  const codecArgs = codec === 'vp8'
    ? ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '10', '-error-resilient', '1', '-lag-in-frames', '0', '-auto-alt-ref', '0',
      '-b:v', '1M', '-maxrate', '1.5M', '-bufsize', '500k', '-undershoot-pct', '95']
    : ['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-level', '3.1',
      '-b:v', '1M', '-maxrate', '1.5M', '-bufsize', '500k', '-x264-params', 'repeat-headers=1'];
  return [
    ...input, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-framerate', String(STREAM_FPS), '-i', 'pipe:0',
    '-an', '-pix_fmt', 'yuv420p', ...codecArgs, '-g', String(KEYFRAME_EVERY), '-threads', '1', '-vsync', 'passthrough',
    ...rtpOut(96, port),
  ];
}

/** ffmpeg arguments of the Opus encoder: mono 48 kHz, 20 ms frames, low delay. */
export function audioArgs(port: number): string[] {
  return [
    ...input, '-f', 's16le', '-ar', String(AUDIO_RATE), '-ac', '1', '-i', 'pipe:0',
    '-vn', '-c:a', 'libopus', '-application', 'lowdelay', '-frame_duration', '20', '-b:a', '48k', ...rtpOut(111, port),
  ];
}

/** Units (frames or sound frames) an encoder has been given; a packet finds its unit by timestamp. */
export class RtpEncoder<U> {
  private readonly units = new Map<number, U>();
  private written = 0;
  private base: number | undefined;
  private pruned = 0;
  private stderr = '';
  private stopping = false;

  private constructor(
    private readonly proc: ChildProcessByStdio<Writable, null, Readable>,
    private readonly socket: Socket,
    /** RTP clock ticks per unit in ffmpeg's stamps. */
    private readonly perUnit: number,
  ) {}

  /**
   * Starts ffmpeg with the arguments `args(port)`; each RTP packet goes to `onPacket` with
   * the unit it carries (packets whose unit is unknown are dropped). `onExit` is told when
   * ffmpeg ends by itself (not through `stop`).
   */
  static async start<U>(
    args: (port: number) => string[], perUnit: number,
    onPacket: (packet: Buffer, unit: U) => void, onExit: (why: string) => void,
  ): Promise<RtpEncoder<U>> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => { socket.off('error', reject); resolve(); });
    });
    socket.on('error', () => {});
    const proc = track(spawn(FFMPEG_PATH, args(socket.address().port), { stdio: ['pipe', 'ignore', 'pipe'] }));
    const enc = new RtpEncoder<U>(proc, socket, perUnit);
    proc.stdin.on('error', () => {});
    proc.stderr.on('data', (d: Buffer) => (enc.stderr = (enc.stderr + d.toString()).slice(-2000)));
    proc.once('close', (code, signal) => {
      enc.socket.close();
      if (!enc.stopping) onExit(`the stream encoder stopped (code ${code}, signal ${signal}): ${enc.stderr.trim().split('\n').at(-1) ?? ''}`);
    });
    socket.on('message', (msg) => {
      // RTP version 2; RTCP (payload types 200-204) is switched off, and dropped should it come.
      if (msg.length < 12 || msg[0]! >> 6 !== 2 || (msg[1]! & 0x7f) >= 72 && (msg[1]! & 0x7f) <= 76) return;
      const ts = msg.readUInt32BE(4);
      enc.base ??= ts;
      const n = Math.round(((ts - enc.base) >>> 0) / perUnit);
      const unit = enc.units.get(n);
      if (unit === undefined) return;
      // Units before the previous one are done with.
      for (; enc.pruned < n - 1; enc.pruned++) enc.units.delete(enc.pruned);
      onPacket(msg, unit);
    });
    return enc;
  }

  /** Units written so far. */
  get count(): number {
    return this.written;
  }

  /**
   * Whether a droppable unit of `bytes` would be taken now: false while a whole unit still
   * waits in the pipe. Asked before a frame is rendered, so a busy encoder costs no render.
   */
  canTake(bytes: number): boolean {
    return !this.stopping && this.proc.stdin.writableLength < bytes;
  }

  /**
   * Gives ffmpeg one unit's raw data. With `droppable`, a unit is not written (false) while a
   * whole unit still waits in the pipe: a late encoder loses frames, it does not fall behind.
   */
  write(data: Uint8Array, unit: U, droppable: boolean): boolean {
    // One unit may wait while ffmpeg reads the one before; a second would mean ffmpeg is behind.
    if (droppable ? !this.canTake(data.length) : this.stopping) return false;
    this.units.set(this.written++, unit);
    this.proc.stdin.write(data);
    return true;
  }

  /** Ends ffmpeg now (its pending packets are lost) and frees the socket. */
  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.units.clear();
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
  }

  /** Resolves once ffmpeg is gone. */
  exited(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return Promise.resolve();
    return new Promise((r) => this.proc.once('close', () => r()));
  }
}

export const VIDEO_TICKS_PER_FRAME = VIDEO_CLOCK_HZ / STREAM_FPS;
