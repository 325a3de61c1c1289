/**
 * The compute adapter's backend interface. The API and the job runner only ever talk to a
 * `ComputeBackend`; the local CPU renderer (`local/`) is one implementation, GPU workers
 * are another. Inputs arrive as local files: fetching, storage and signing are the
 * caller's job, so a backend needs no network and no database.
 */
import type { RunnableKind, TaskRequest, TaskResult } from './tasks/index.ts';

/** mp4 and mov carry H.264 (mov: ProRes 4444 when the background is transparent); webm carries VP9 and Opus. */
export type ResultFormat = 'mp4' | 'mov' | 'webm';

/** A face the caller asks for, in source-image pixels (FaceSquare of the API). */
export interface FaceRequest {
  size: number;
  top_left: [number, number];
}

/** One detected face, in the shape of `metadata.faces[]` of the animation record. */
export interface DetectedFace {
  face_id: number;
  /** [left, top, right, bottom] in source-image pixels. */
  detection: [number, number, number, number];
  top_left: [number, number];
  size: number;
  detect_confidence: number;
  mask_confidence: number;
  /** Overlap of the face square with the image border: no, partial, yes, unknown. */
  overlap: 'no' | 'partial' | 'yes' | 'unknown';
}

/** One phoneme of a speech driver, with its span in the audio (a voice's timings). */
export interface SpeechCue {
  /** IPA (eSpeak) or ARPAbet (Flite). */
  phoneme: string;
  alphabet: 'ipa' | 'arpabet';
  startMs: number;
  endMs: number;
}

export type DriverInput =
  /** A driver of the bank, already resolved to one name (see src/compute/driver-bank.ts). */
  | { kind: 'bank'; category: string; name: string }
  /** A driver video the caller fetched to a local file. */
  | { kind: 'video'; path: string }
  /**
   * Speech: the face speaks `audioPath` (a WAV the caller wrote), its lips following `cues`
   * (or, when there are none, the sound's loudness), with idle motion (blinks, small head
   * movement) seeded by `seed`. The result is as long as the audio and carries it.
   */
  | { kind: 'speech'; audioPath: string; cues: SpeechCue[]; seed: string }
  /**
   * Live: a stream (src/compute/stream.ts), its speech arriving while it runs over the task's
   * stream socket (`stream.render` tasks only; a batch render refuses it).
   */
  | { kind: 'live'; seed: string };

/** What logo the result carries (AnimateConfig.logo, resolved to a local file by the caller). */
export type LogoInput =
  /** `logo` absent or `true`: the project's default logo, in the bottom-right corner. */
  | { kind: 'default' }
  /** `logo: false`: no logo. */
  | { kind: 'none' }
  /**
   * `logo: {url, position}`: this image (alpha respected), its top-left corner at `position`
   * in result pixels; a negative value counts back from the last pixel (-1 = the last column
   * or row, so the logo's top-left sits on it). Undecodable → `LogoError`.
   */
  | { kind: 'image'; path: string; position: [number, number] };

/**
 * What the person is shown on. Absent: the source picture as it is (nothing is cut out).
 * Otherwise the person is cut out of the source picture (a segmentation matte computed once,
 * warped with the face each frame) and composited over the background.
 */
export type BackgroundInput =
  /** A flat colour, `#rrggbb`. */
  | { kind: 'color'; color: string }
  /** No background: the result keeps the matte as its alpha channel (webm: VP9 yuva420p; mov: ProRes 4444). */
  | { kind: 'transparent' }
  /** A picture the caller fetched to a local file, scaled to cover the frame (centred, cut to fit). Undecodable → `BackgroundError`. */
  | { kind: 'image'; path: string };

/** Formats that can carry an alpha channel (a transparent background). */
export const ALPHA_FORMATS: readonly ResultFormat[] = ['webm', 'mov'];

export interface RenderRequest {
  jobId: string;
  sourcePath: string;
  driver: DriverInput;
  face?: FaceRequest;
  resultFormat: ResultFormat;
  /** true: no audio track in the result. false: the driver's sound is carried over. */
  mute: boolean;
  stitch: boolean;
  maxAnimatedFaces: number;
  logo: LogoInput;
  /** The person cut out and shown on this; absent: the source picture unchanged. */
  background?: BackgroundInput;
  /**
   * A video composited over the result, frame by frame from its start, scaled to the
   * result's size; its alpha channel is respected when it has one (for example a mov with
   * qtrle or ProRes 4444), else it is screen-blended (black is transparent, light adds
   * light), as effect overlays without alpha are meant. It plays from the result's first
   * frame; a shorter overlay stops early, a longer one is cut.
   * Undecodable → `OverlayError`.
   */
  overlayPath?: string;
  /**
   * The larger side of the finished video, pixels (its aspect kept, even sides for the codec, alpha kept): the video
   * is scaled to it once rendered. Absent: the render's own size.
   */
  outputResolution?: number;
  /** The backend writes the finished video here (the caller creates the folder). */
  outputPath: string;
  /**
   * A folder (the caller creates it) where a backend that can also writes the video while it
   * renders, as an HLS event playlist (`index.m3u8` and its segments) that grows segment by
   * segment. The local backend does; remote workers do not (the folder stays empty).
   */
  previewDir?: string;
  /** Scratch folder for the backend; the caller removes it afterwards. */
  workDir: string;
  signal: AbortSignal;
  onProgress?: (framesDone: number, framesTotal: number) => void;
}

export interface RenderMetadata {
  num_frames: number;
  processing_fps: number;
  /** [width, height] of the result as strings, as the hosted service reports it. */
  resolution: [string, string];
  size_kib: number;
  /** Head pose of the animated face in the source image, degrees: [yaw, pitch, roll]. */
  source_pose: [number, number, number];
  /** Frames per second, a whole number (the video itself may run at 29.97). */
  video_fps: number;
  faces: DetectedFace[];
}

export interface RenderResult {
  metadata: RenderMetadata;
  /** face_id of every animated face. */
  faceIds: number[];
}

/** Where a parked job's task stands (see `ComputeBackend.parking`). */
export type RenderState<R = RenderResult> =
  /** Nothing to wait for (never submitted, superseded, or its failure already reported): submit. */
  | { state: 'none' }
  | { state: 'running'; progress: { done: number; total: number } | null }
  /** Finished: the outputs are at the outputPath given to `poll`. */
  | { state: 'done'; result: R };

/**
 * A backend whose tasks run elsewhere (GPU workers): the job hands the task over and
 * parks, holding no runner slot, and is woken when it ends (src/jobs/README.md).
 */
export interface ParkingBackend {
  /** Hands the task over and returns at once; the job then waits on it. */
  submit<K extends RunnableKind>(kind: K, req: TaskRequest<K>): Promise<void>;
  /**
   * Where the job's latest task stands; keeps the job waiting on it while it runs. Throws the
   * task's failure (RenderError for the inputs' fault), once.
   */
  poll<K extends RunnableKind>(kind: K, jobId: string, outputPath: string): Promise<RenderState<TaskResult<K>>>;
  /** The longest a parked job waits before it looks again on its own (another API process, an expired lease). */
  readonly recheckMs: number;
}

/**
 * Avatar training (`avatar.train`): footage of one person becomes a presenter's reference
 * picture, its idle loop and a measure of its voice (docs/compute-protocol.md, "Avatar training").
 */
export interface TrainRequest {
  jobId: string;
  /** The footage (a local file), already checked: one person, facing the camera, a silent and idle ending. */
  footagePath: string;
  /** The silent, idle ending the checks found, seconds into the footage. */
  idle: { fromSec: number; toSec: number };
  /** Where the speech is (for the voice measurement): seconds into the footage, e.g. [0, idle.fromSec). */
  speech: { fromSec: number; toSec: number };
  /** The backend writes `reference.png` and `idle.mp4` here (the caller creates the folder). */
  outputDir: string;
  workDir: string;
  signal: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

export interface TrainResult {
  /** Seconds into the footage of the frame chosen as the presenter's picture. */
  referenceSec: number;
  /** Length of idle.mp4, seconds (it loops seamlessly: its last frame leads into its first). */
  loopSec: number;
  /** Size of reference.png and idle.mp4 (square). */
  size: number;
  /** Median fundamental frequency of the voice over the speech part, Hz; null when none could be measured. */
  pitchHz: number | null;
}

/** The files a training writes into `TrainRequest.outputDir`. */
export const TRAIN_OUTPUT_FILES = { reference: 'reference.png', idle: 'idle.mp4' } as const;

export interface ComputeBackend {
  /** Present when tasks run outside this process: the job runner parks instead of waiting. */
  readonly parking?: ParkingBackend;
  readonly name: string;
  /**
   * Runs one task of `kind` (the catalogue, src/compute/tasks/: a render, a training, ...). Fails
   * with `RenderError` (src/errors.ts) for a reason that lies in the inputs (FaceError,
   * SourceError, DriverError, LogoError, FootageError, ...); any other error is a fault of the
   * backend, and the job may be retried. Must not block the caller's event loop: heavy work runs
   * in another thread or process.
   */
  run<K extends RunnableKind>(kind: K, req: TaskRequest<K>): Promise<TaskResult<K>>;
  close(): Promise<void>;
}
