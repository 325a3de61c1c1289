/** Messages between the stream renderer (parent) and its stream render process. */
import type { RenderErrorKind } from '../../../errors.ts';
import type { FrameCounts } from './engine.ts';
import type { StreamEvent, StreamOpenRequest, StreamSpeech, StreamStartOptions } from '../../stream.ts';

export type StreamParentMessage =
  | { type: 'open'; id: number; sid: number; req: StreamOpenRequest }
  | { type: 'start'; id: number; sid: number; opts: StreamStartOptions }
  | { type: 'speak'; sid: number; speech: StreamSpeech }
  | { type: 'interrupt'; sid: number }
  | { type: 'close'; id: number; sid: number }
  | { type: 'stats'; id: number }
  /** Start the preparation thread and load the face models ahead of the first stream. */
  | { type: 'warm'; id: number };

/** What the render process has to say about one session, in the order it happened. */
export type StreamOutput =
  | { sid: number; video: Uint8Array }
  | { sid: number; audio: Uint8Array }
  | { sid: number; event: StreamEvent };

export interface StreamStats {
  /** Sessions open in the render process. */
  sessions: number;
  /** ffmpeg processes running there. */
  ffmpeg: number;
  /** The render process's id (absent when it is not running). */
  pid?: number;
  /** Frames since it started: sent, dropped unrendered, rendered and thrown away (engine.ts FrameCounts). */
  frames?: FrameCounts;
}

export type StreamChildMessage =
  | { type: 'reply'; id: number; ok: true; value?: { width: number; height: number } | StreamStats }
  | { type: 'reply'; id: number; ok: false; error: { message: string; renderKind?: RenderErrorKind } }
  /** Packets and events batched per turn of the render process's event loop (one IPC message, not one per packet). */
  | { type: 'output'; items: StreamOutput[] };
