/**
 * The live stream engine, in the process that calls it: renders and encodes each open stream
 * in real time. `createLocalStreamRenderer` (index.ts) runs it in a render process of its
 * own; a GPU worker could run it in its own process the same way.
 *
 * One clock per stream: slot k is 20 ms long and starts k * 20 ms after `start`. Every slot
 * writes 20 ms of sound (speech, or silence) to the Opus encoder; every second slot a frame
 * is rendered for the same instant, showing the mouth of the sound written in that slot.
 * Packets carry their slot's time (k * 1800 at 90 kHz, k * 960 at 48 kHz), so a frame and
 * the sound it shows have the same wall-clock time. A late timer writes the sound of every
 * slot it missed but renders only the newest frame (frames drop, time never drifts).
 */
import type {
  StreamEvent, StreamMediaSink, StreamOpenRequest, StreamRenderSession, StreamRenderer, StreamSpeech, StreamStartOptions,
} from '../../stream.ts';
import { STREAM_FPS } from '../../stream.ts';
import { loadBackground, overBackground } from '../matte.ts';
import { liveMotion, type MotionFrame, type SpeechPose } from '../motion.ts';
import { animateFrame } from '../render.ts';
import { speechMouth } from '../speech-driver.ts';
import type { RgbImage } from '../warp.ts';
import { AUDIO_FRAME, AUDIO_RATE, RtpEncoder, VIDEO_TICKS_PER_FRAME, audioArgs, videoArgs } from './encoders.ts';
import { sameThreadPreparer, threadPreparer, type PreparedFace } from './prepare.ts';

/**
 * Frames of all sessions of an engine: rendered and sent to the encoder, dropped unrendered
 * (a late timer, or the encoder still busy with the frame before), and discarded (rendered,
 * then refused by the encoder: never, since a frame is rendered only when the encoder can take it).
 */
export interface FrameCounts {
  rendered: number;
  dropped: number;
  discarded: number;
}
const SLOT_MS = (AUDIO_FRAME / AUDIO_RATE) * 1000;
const SLOTS_PER_FRAME = 1000 / STREAM_FPS / SLOT_MS;
/** The warm-up clip (stream_warmup) lasts this many slots (1 s). */
const WARMUP_SLOTS = 50;

/** A unit given to an encoder: the slot it belongs to, whether its packets go out, and what to say when they do. */
interface Unit {
  slot: number;
  deliver: boolean;
  onSent?: () => void;
}

/** One script (videoId) being spoken. */
interface Script {
  videoId: string;
  playedSamples: number;
  lastQueued: boolean;
  startedSent: boolean;
  finished: boolean;
}

/** One piece of speech ready to play: the sound at 48 kHz, and the mouth per frame. */
interface Piece {
  videoId: string;
  last: boolean;
  pcm: Int16Array;
  pos: number;
  pose: { mouth: number[]; round: number[]; loudness: number[] };
}

/** Speech `pcm` at `rate` resampled (linear) to 48 kHz. */
function to48k(pcm: Int16Array, rate: number): Int16Array {
  if (rate === AUDIO_RATE) return pcm;
  const n = Math.floor((pcm.length * AUDIO_RATE) / rate);
  const out = new Int16Array(n);
  const step = rate / AUDIO_RATE;
  for (let i = 0; i < n; i++) {
    const x = i * step, j = Math.floor(x), f = x - j;
    const a = pcm[j] ?? 0, b = pcm[j + 1] ?? a;
    out[i] = Math.round(a + (b - a) * f);
  }
  return out;
}

function pieceOf(s: StreamSpeech): Piece {
  const samples = new Float32Array(s.pcm.length);
  for (let i = 0; i < samples.length; i++) samples[i] = s.pcm[i]! / 32768;
  const pose = speechMouth({ sampleRate: s.sampleRate, samples }, s.cues, STREAM_FPS);
  return { videoId: s.videoId, last: s.last, pcm: to48k(s.pcm, s.sampleRate), pos: 0, pose };
}

export interface EngineSessionInfo {
  width: number;
  height: number;
}

class Session implements StreamRenderSession {
  readonly width: number;
  readonly height: number;
  private readonly motion: (t: number, speech?: SpeechPose) => MotionFrame;
  private readonly frame: RgbImage;
  private readonly matte?: { from: Uint8Array; into: Uint8Array };
  private opts?: StreamStartOptions;
  private audio?: RtpEncoder<Unit>;
  private video?: RtpEncoder<Unit>;
  /** Not fluent: a fresh video encoder waits, so the first frame after a pause is a keyframe. */
  private spare?: RtpEncoder<Unit>;
  private sparing = false;
  private epoch = 0;
  private slot = -1;
  /** No frame went out since the last frame slot that was not live (not fluent: between scripts). */
  private paused = false;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private videoSeq = Math.floor(Math.random() * 0x10000);
  private audioSeq = Math.floor(Math.random() * 0x10000);
  private readySent = false;
  private readonly queue: Piece[] = [];
  private piece?: Piece;
  private script?: Script;
  private readonly scripts = new Map<string, Script>();
  /** The pose of the sound written in the current slot (what the frame of this slot shows). */
  private pose?: SpeechPose;
  private readonly chunk = new Int16Array(AUDIO_FRAME);

  constructor(
    private readonly face: PreparedFace,
    private readonly background: Uint8Array | undefined,
    matte: Uint8Array | undefined,
    private readonly seed: string,
    private readonly sink: StreamMediaSink,
    private readonly onEvent: (e: StreamEvent) => void,
    private readonly counts: FrameCounts,
  ) {
    this.width = face.image.width;
    this.height = face.image.height;
    this.motion = liveMotion(seed);
    this.frame = { width: this.width, height: this.height, data: new Uint8Array(face.image.data.length) };
    if (matte && background) this.matte = { from: matte, into: new Uint8Array(matte.length) };
  }

  private emit(e: StreamEvent): void {
    if (!this.closed) this.onEvent(e);
  }

  private fail(description: string): void {
    if (this.closed) return;
    this.emit({ type: 'error', kind: 'UnknownError', description, ...(this.script ? { videoId: this.script.videoId } : {}) });
    void this.close();
  }

  /** Every encoder this session started (or is starting), so `close` stops them all. */
  private readonly encoders = new Set<RtpEncoder<Unit>>();
  private readonly starting = new Set<Promise<unknown>>();

  private startEncoder(video: boolean): Promise<RtpEncoder<Unit>> {
    const o = this.opts!;
    const p = video
      ? RtpEncoder.start<Unit>((port) => videoArgs(o.codec, this.width, this.height, port), VIDEO_TICKS_PER_FRAME, (pk, u) => this.send(pk, u, true), (why) => this.fail(why))
      : RtpEncoder.start<Unit>(audioArgs, AUDIO_FRAME, (pk, u) => this.send(pk, u, false), (why) => this.fail(why));
    this.starting.add(p);
    p.then((e) => {
      this.encoders.add(e);
      if (this.closed) e.stop();
    }, () => {}).finally(() => this.starting.delete(p));
    return p;
  }

  private startVideo(): Promise<RtpEncoder<Unit>> {
    return this.startEncoder(true);
  }

  private send(packet: Buffer, unit: Unit, video: boolean): void {
    if (this.closed || !unit.deliver) return;
    if (video) {
      packet.writeUInt16BE(this.videoSeq, 2);
      this.videoSeq = (this.videoSeq + 1) & 0xffff;
      packet.writeUInt32BE((unit.slot * (VIDEO_TICKS_PER_FRAME / SLOTS_PER_FRAME)) >>> 0, 4);
      this.sink.video(packet);
    } else {
      packet.writeUInt16BE(this.audioSeq, 2);
      this.audioSeq = (this.audioSeq + 1) & 0xffff;
      packet.writeUInt32BE((unit.slot * AUDIO_FRAME) >>> 0, 4);
      this.sink.audio(packet);
    }
    const cb = unit.onSent;
    unit.onSent = undefined;
    cb?.();
  }

  async start(opts: StreamStartOptions): Promise<void> {
    if (this.opts) throw new Error('the stream was started already');
    this.opts = opts;
    const [audio, video] = await Promise.all([this.startEncoder(false), this.startVideo()]);
    this.audio = audio;
    this.video = video;
    if (this.closed) return;
    if (!opts.fluent) this.prepareSpare();
    this.epoch = performance.now();
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    const due = this.epoch + (this.slot + 1) * SLOT_MS;
    this.timer = setTimeout(() => this.tick(), Math.max(0, due - performance.now()));
  }

  private tick(): void {
    if (this.closed) return;
    const now = Math.floor((performance.now() - this.epoch) / SLOT_MS);
    // Sound for every slot up to now (none is lost); a frame only for the newest frame slot.
    const newestFrame = now - (now % SLOTS_PER_FRAME);
    while (this.slot < now && !this.closed) {
      this.slot++;
      this.writeSound(this.slot);
      if (this.slot % SLOTS_PER_FRAME !== 0) continue;
      if (this.slot === newestFrame) this.writeFrame(this.slot);
      else if (this.live(this.slot)) this.counts.dropped++;
    }
    this.schedule();
  }

  /**
   * Whether media of `slot` goes out: always when fluent, while a script plays, and during the
   * warm-up (until its last frame went to the encoder: a late timer may skip the frame due at
   * its end, and the warm-up then ends with the next one).
   */
  private live(slot: number): boolean {
    const o = this.opts!;
    return o.fluent || this.script !== undefined || (o.warmup && (slot < WARMUP_SLOTS || !this.readySent));
  }

  /** The next piece to play: the current script's next piece, or (the script done) the next script's first. */
  private nextPiece(): Piece | undefined {
    const cur = this.script && !this.script.finished ? this.script.videoId : undefined;
    const i = cur === undefined ? 0 : this.queue.findIndex((p) => p.videoId === cur);
    if (i < 0 || i >= this.queue.length) return undefined;
    return this.queue.splice(i, 1)[0];
  }

  private writeSound(slot: number): void {
    const chunk = this.chunk;
    chunk.fill(0);
    let filled = 0;
    let onSent: (() => void) | undefined;
    const events: (() => void)[] = [];
    this.pose = undefined;
    while (filled < AUDIO_FRAME) {
      if (!this.piece || this.piece.pos >= this.piece.pcm.length) {
        const finishing = this.piece;
        this.piece = undefined;
        if (finishing?.last && this.script) {
          const s = this.script;
          s.finished = true;
          this.script = undefined;
          events.push(() => this.finish(s, false));
        }
        const next = this.nextPiece();
        if (!next) break;
        this.piece = next;
        if (!this.script || this.script.videoId !== next.videoId) {
          const s = this.scripts.get(next.videoId)!;
          this.script = s;
          events.push(() => this.started(s));
        }
      }
      const p = this.piece;
      if (filled === 0 || !this.pose) {
        const f = Math.min(p.pose.mouth.length - 1, Math.floor((p.pos / AUDIO_RATE) * STREAM_FPS));
        this.pose = f >= 0 ? { mouth: p.pose.mouth[f]!, round: p.pose.round[f]!, loudness: p.pose.loudness[f]! } : undefined;
      }
      const n = Math.min(AUDIO_FRAME - filled, p.pcm.length - p.pos);
      chunk.set(p.pcm.subarray(p.pos, p.pos + n), filled);
      p.pos += n;
      filled += n;
      this.script!.playedSamples += n;
    }
    if (events.length > 0) onSent = () => events.forEach((e) => e());
    const unit: Unit = { slot, deliver: this.live(slot) || onSent !== undefined, ...(onSent ? { onSent } : {}) };
    this.audio!.write(Buffer.from(chunk.buffer.slice(0)), unit, false);
  }

  private started(s: Script): void {
    if (s.startedSent) return;
    s.startedSent = true;
    this.emit({ type: 'started', videoId: s.videoId });
  }

  private finish(s: Script, interrupted: boolean): void {
    if (!this.scripts.has(s.videoId) || this.scripts.get(s.videoId) !== s) return;
    this.scripts.delete(s.videoId);
    if (s.playedSamples > 0) this.started(s);
    this.emit({ type: 'done', videoId: s.videoId, spokenMs: Math.round((s.playedSamples / AUDIO_RATE) * 1000), interrupted });
  }

  private writeFrame(slot: number): void {
    if (!this.live(slot)) {
      // A pause begins: the encoder that takes over after it starts now, not when speech does.
      if (!this.paused) this.prepareSpare();
      this.paused = true;
      return;
    }
    if (this.paused && this.spare && this.video!.count > 0) this.swapVideo();
    this.paused = false;
    // A busy encoder (a loaded machine) skips this frame before its render: the CPU goes to
    // the frames it can take. The warm-up's last frame, if skipped, is the next one taken.
    if (!this.video!.canTake(this.frame.data.length)) {
      this.counts.dropped++;
      return;
    }
    const t = (slot * SLOT_MS) / 1000;
    animateFrame(this.face.image, this.face.rig, this.motion(t, this.pose), this.frame, this.matte);
    if (this.matte && this.background) overBackground(this.frame, this.matte.into, this.background);
    const o = this.opts!;
    const warmupEnd = o.warmup && !this.readySent && slot >= WARMUP_SLOTS - SLOTS_PER_FRAME;
    const unit: Unit = { slot, deliver: true, ...(warmupEnd ? { onSent: () => this.ready() } : {}) };
    if (warmupEnd) this.readySent = true;
    const ok = this.video!.write(Buffer.from(this.frame.data), unit, true);
    this.counts[ok ? 'rendered' : 'discarded']++;
    if (!ok && warmupEnd) this.readySent = false;
  }

  private ready(): void {
    this.emit({ type: 'ready' });
  }

  /** Not fluent: starts the encoder that takes over after the next pause, unless one waits or is starting. */
  private prepareSpare(): void {
    if (this.spare || this.sparing || this.closed) return;
    this.sparing = true;
    this.startVideo().then((e) => { this.sparing = false; if (!this.closed) this.spare = e; }, () => { this.sparing = false; });
  }

  /** A pause ended (not fluent): the waiting encoder takes over, so the run's first frame is a keyframe. */
  private swapVideo(): void {
    const next = this.spare!, old = this.video!;
    this.spare = undefined;
    this.video = next;
    old.stop();
    void old.exited().then(() => this.encoders.delete(old));
  }

  speak(speech: StreamSpeech): void {
    if (this.closed) return;
    if (!(speech.sampleRate >= 8000 && speech.sampleRate <= 192_000)) throw new Error(`speech at ${speech.sampleRate} Hz cannot be played`);
    if (!this.scripts.has(speech.videoId)) {
      this.scripts.set(speech.videoId, { videoId: speech.videoId, playedSamples: 0, lastQueued: false, startedSent: false, finished: false });
    }
    const s = this.scripts.get(speech.videoId)!;
    if (s.lastQueued) return;
    s.lastQueued = speech.last;
    this.queue.push(pieceOf(speech));
  }

  interrupt(): void {
    if (this.closed) return;
    const current = this.script;
    this.queue.length = 0;
    this.piece = undefined;
    this.script = undefined;
    if (current) this.finish(current, true);
    // Scripts queued and never started end too (nothing of them was heard).
    for (const s of [...this.scripts.values()]) this.finish(s, true);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // What was being said ends as interrupted, so its spoken time is known (credits).
    this.interrupt();
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.starting]);
    for (const e of this.encoders) e.stop();
    await Promise.all([...this.encoders].map((e) => e.exited()));
    this.encoders.clear();
  }
}

/** The stream engine in this process (see the file's comment); heavy work runs on this event loop. */
export interface StreamEngineOptions {
  /** Faces are prepared on a worker thread (default), so opening a stream never stalls the others' frames. */
  prepareOnThread?: boolean;
}

export function createStreamEngine(opts: StreamEngineOptions = {}): StreamRenderer & { warm(): Promise<void>; sessions(): number; frames(): FrameCounts } {
  const preparer = opts.prepareOnThread === false ? sameThreadPreparer : threadPreparer();
  const open = new Set<Session>();
  const counts: FrameCounts = { rendered: 0, dropped: 0, discarded: 0 };
  return {
    name: 'local-engine',
    async open(req: StreamOpenRequest, sink: StreamMediaSink, onEvent: (e: StreamEvent) => void): Promise<StreamRenderSession> {
      // A transparent background means nothing on a video track: the picture is streamed as it is.
      const withBackground = req.background !== undefined && req.background.kind !== 'transparent';
      const { face, matte } = await preparer.prepare(req.sourcePath, req.face, req.stitch, withBackground);
      const { width, height } = face.image;
      const background = withBackground ? await loadBackground(req.background!, width, height) : undefined;
      const s = new Session(face, background, matte, req.seed, sink, onEvent, counts);
      open.add(s);
      const close = s.close.bind(s);
      s.close = async () => { open.delete(s); await close(); };
      return s;
    },
    warm: () => preparer.warm(),
    async close() {
      await Promise.all([...open].map((s) => s.close()));
      await preparer.close();
    },
    sessions: () => open.size,
    frames: () => ({ ...counts }),
  };
}
