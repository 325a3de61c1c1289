/**
 * Live streams on the compute side: a face that idles and speaks in real time, its video and
 * sound encoded and packetised as RTP for a WebRTC peer. The peer (src/streams/) owns the
 * WebRTC connection and never renders; a `StreamRenderer` renders and encodes, and never
 * touches the network beyond handing packets to its sink. The local CPU renderer
 * (src/compute/local/stream/) is one implementation; a GPU worker streaming frames back over
 * the worker protocol is another (docs/compute-protocol.md, `stream.render`).
 */
import type { BackgroundInput, FaceRequest, SpeechCue } from './interface.ts';

/** What the browser's answer chose for the video track (the server offers both). */
export type VideoCodec = 'vp8' | 'h264';

/** The clock rates the packets' timestamps count in. */
export const VIDEO_CLOCK_HZ = 90_000;
export const AUDIO_CLOCK_HZ = 48_000;
/** Frames per second a stream is rendered at, idle and speaking. */
export const STREAM_FPS = 25;

/** What a stream shows: known at creation, before the client has answered. */
export interface StreamOpenRequest {
  streamId: string;
  /** The picture (a talk's photo, a presenter's picture), a local file. */
  sourcePath: string;
  face?: FaceRequest;
  /** true: the whole picture is streamed (its faces animated); false: a square crop around the face. */
  stitch: boolean;
  /** The person cut out and shown on this (clip streams); absent: the picture as it is. */
  background?: BackgroundInput;
  /** Seeds idle motion (blinks, head wander) so a stream is reproducible. */
  seed: string;
  /** Scratch folder the renderer may use; the caller creates it and removes it after close. */
  workDir: string;
}

/** Where encoded media goes: RTP packets ready for the peer's tracks. */
export interface StreamMediaSink {
  /**
   * One RTP packet of the video track (VP8 or H.264 as `start` asked). Timestamps count
   * VIDEO_CLOCK_HZ on the same wall clock as the audio's, so the receiver keeps lips and
   * sound together; a pause in video is a jump in timestamps. Sequence numbers are
   * continuous. The peer rewrites SSRC and payload type only.
   */
  video(packet: Buffer): void;
  /** One RTP packet of Opus at AUDIO_CLOCK_HZ (20 ms frames), same rules as `video`. */
  audio(packet: Buffer): void;
}

/**
 * One piece of speech: a sentence or a whole script, already synthesised (the peer side
 * runs the voices). Pieces with the same `videoId` are one script: `stream/started` comes
 * with the first piece's first frame, `stream/done` after the piece with `last: true` has
 * played out.
 */
export interface StreamSpeech {
  videoId: string;
  /** Signed 16-bit mono samples. */
  pcm: Int16Array;
  sampleRate: number;
  /** Phoneme timings of this piece (empty: the mouth follows the sound itself). */
  cues: SpeechCue[];
  last: boolean;
}

export type StreamEvent =
  /** `start` finished its warm-up clip (stream_warmup): the client may speak now. */
  | { type: 'ready' }
  /** A script's first frame and sound went out. */
  | { type: 'started'; videoId: string }
  /** A script played out, or was interrupted; `spokenMs` is how much of it was heard (credits). */
  | { type: 'done'; videoId: string; spokenMs: number; interrupted: boolean }
  /** The renderer failed; the stream cannot go on (`kind` from src/errors.ts, e.g. FaceError). */
  | { type: 'error'; kind: string; description: string; videoId?: string };

export interface StreamStartOptions {
  codec: VideoCodec;
  /** true: idle frames (blinks, breathing, small head motion) flow between scripts at STREAM_FPS; false: media flows only while speaking. */
  fluent: boolean;
  /** true: a short idle clip (about 1 s) is sent first, then `ready` (and, not fluent, frames stop). */
  warmup: boolean;
}

export interface StreamRenderSession {
  /** Frame size the stream is rendered at (even numbers). */
  readonly width: number;
  readonly height: number;
  /** Begins sending media (after the client's answer decided the codec). Called once. */
  start(opts: StreamStartOptions): Promise<void>;
  /** Queues speech: it plays after what is queued (a new script waits for the current one); speech queued before `start` plays once started. */
  speak(speech: StreamSpeech): void;
  /** Barge-in: the current speech stops at once (its `done` says `interrupted`), the queue is emptied. */
  interrupt(): void;
  /**
   * Stops everything and frees its processes; safe to call twice. A script still playing ends
   * first with its `done` (interrupted, `spokenMs` what was heard), so it is charged.
   */
  close(): Promise<void>;
}

export interface StreamRenderer {
  readonly name: string;
  /**
   * Prepares a stream: decodes the picture, finds the face, builds the rig. Fails with
   * RenderError (FaceError, SourceError, BackgroundError) for a reason in the inputs.
   * Heavy work never runs on the caller's event loop.
   */
  open(req: StreamOpenRequest, sink: StreamMediaSink, onEvent: (e: StreamEvent) => void): Promise<StreamRenderSession>;
  /**
   * Starts, ahead of the first stream, what the first `open()` would start (processes,
   * threads, face models), so that the first stream opens as fast as the ones after it.
   * Optional; a renderer whose work runs elsewhere (remote workers) has nothing to warm.
   */
  warm?(): Promise<void>;
  /** Closes every session and the renderer's processes. */
  close(): Promise<void>;
}
