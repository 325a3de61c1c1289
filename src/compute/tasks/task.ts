/**
 * What one kind of compute task is (docs/compute-protocol.md, "Task kinds"): an entry of the
 * catalogue (`./index.ts`), one file per kind. Every part of compute that handles tasks (the
 * local backend, the remote backend, the worker protocol's service, the remote worker) looks
 * the kind up here and calls its handler; none of them has a branch per kind.
 */
import type { ClaimedTask, CompleteBody } from '../../schemas/compute.ts';
import type { Logger } from '../../log.ts';
import type { ComputeBackend } from '../interface.ts';
import type { StreamRenderer } from '../stream.ts';
import type { TaskRow, WorkerResult } from '../remote/task-store.ts';
import type { TaskKind } from './index.ts';

/** How a file must start: an ftyp box of this major brand, or these magic bytes (hex). */
export type FileBrand = { ftyp: string } | { magic: string };

/** What an output file of a task must be: its content type, how it starts, and that in words. */
export interface OutputFile {
  contentType: string;
  brand: FileBrand;
  text: string;
}

export type FileMethod = 'GET' | 'PUT';
/** A signed URL of the task's file `name` (an input, an output, or the stream socket). */
export type SignUrl = (name: string, method: FileMethod) => string;

/** What a claim answer of a task is built with. */
export interface PresentContext {
  sign: SignUrl;
  /** The largest output a worker may upload. */
  maxBytes: number;
  /** The signed WebSocket URL of the task's stream socket. */
  streamUrl(): string;
}

/** Moves the accepted attempt's upload `name` (`result` when undefined) to `target`; false when it is gone (remote/files.ts). */
export type TakeUpload = (name: string | undefined, target: string) => Promise<boolean>;

/** What checking a `complete` call of a task has at hand. */
export interface CompleteContext {
  row: TaskRow;
  /** Fails with 409 result_missing unless each output was uploaded under the completing lease (the store checks `result` itself). */
  requireUploads(names: readonly string[]): void;
}

/** The local side: which job of the render process (src/compute/local/child.ts) runs the task, and what it leaves behind. */
export interface LocalRunner<Req> {
  /** The render process's runner (a key of its RUNNERS). */
  runner: string;
  /** The job message for that runner: the request without its signal and progress callback. */
  job(req: Req): unknown;
  /** Files a cancelled run removes (a half-written output must not look like a result). */
  outputs(req: Req): string[];
}

/** The service's side of a remote task: what its row keeps, which files it has, and how its result is read back. */
export interface RemoteSide<Req, Res, Stored> {
  /** The row's `request` column (input paths are the API host's) and its `output_path` (a file or a folder). */
  store(req: Req): { request: Stored; outputPath: string };
  /** The local file behind input `name`, or null when this task has none. */
  inputPath(stored: Stored, name: string): string | null;
  /** Output `name` of this task, or null when it has no such output. */
  outputFile(stored: Stored, name: string): OutputFile | null;
  /** The kind's own fields of the claim answer (besides task_id, lease, kind and inputs). */
  present(stored: Stored, ctx: PresentContext): Partial<ClaimedTask>;
  /** A `complete` body checked against the kind (ApiError 400/409 otherwise): what the row keeps. */
  completion(body: CompleteBody, stored: Stored, ctx: CompleteContext): Omit<WorkerResult, 'renderMs'>;
  /**
   * Moves the accepted attempt's outputs to `target` (the row's output path) and reads the result.
   * null when an earlier run of the job already took them and they are gone.
   */
  readBack(row: TaskRow, target: string, take: TakeUpload): Promise<Res | null>;
}

export type WorkerOutcome = 'completed' | 'failed' | 'lost';

/** What the remote worker (src/compute/remote/worker/) gives a kind's executor. */
export interface WorkerContext {
  backend: ComputeBackend;
  streams: StreamRenderer | undefined;
  log: Logger;
  /** The task's scratch folder (removed afterwards). */
  dir: string;
  /** Aborted when the task is lost or the worker stops. */
  signal: AbortSignal;
  /** Throws when `signal` is aborted. */
  checkpoint(): void;
  /** Downloads a task URL into `dir` as `name` (plus the extension its content type names). */
  download(url: string, name: string, maxBytes: number): Promise<string>;
  /** PUTs a file to a task's upload URL. */
  upload(url: string, file: string, contentType: string): Promise<void>;
  /** Refuses a URL outside the worker's server. */
  sameOrigin(url: string): void;
  /** Shown in the next heartbeat. */
  progress(done: number, total: number): void;
  /** POST complete with this body (the lease is added). */
  complete(body: object): Promise<void>;
  /** Times for the `task done` log line. */
  mark(step: 'downloaded' | 'rendered'): void;
}

/** The remote worker's side: what it can run, and how. */
export interface WorkerSide {
  /** Whether a worker with these parts claims the kind (a stream needs a stream renderer). */
  claims(parts: { streams: StreamRenderer | undefined }): boolean;
  execute(task: ClaimedTask, ctx: WorkerContext): Promise<WorkerOutcome>;
}

/** What every task's request has: the job it belongs to, its abort and its progress. */
export interface TaskRequestBase {
  jobId: string;
  signal: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/**
 * One task kind. `Req`/`Res` are what `ComputeBackend.run(kind, req)` takes and gives (never for a
 * kind that is not run as a batch job, like stream.render); `Stored` is the row's `request`.
 */
export interface TaskDefinition<K extends string, Req, Res, Stored> {
  kind: K;
  /** Input files a worker may GET, by name. */
  inputs: readonly string[];
  /** Output files a worker must PUT, by name. */
  outputs: readonly string[];
  /** Absent: the kind does not run through `ComputeBackend.run` (a live stream has its own renderer). */
  local?: LocalRunner<Req>;
  remote: RemoteSide<Req, Res, Stored>;
  worker: WorkerSide;
}

/** The kind of a task row written before kinds existed, and what a worker that names no kinds claims. */
export const DEFAULT_TASK_KIND: TaskKind = 'animation.render';
