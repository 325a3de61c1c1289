import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { MediaStore } from '../../media/store.ts';
import { taskOf } from '../tasks/index.ts';
import { uploadPathOf, type TaskRow } from './task-store.ts';

/**
 * Where a remote task's files are between the API processes and its worker: the inputs a
 * worker downloads (written by the process that created the task) and the outputs it uploads
 * (to whichever process its PUT reaches) until the job takes them. On one machine, beside the
 * job's work folder (today's paths); with media in S3, in the bucket, so any API process can
 * serve an input or take an output another one received.
 */
export interface ComputeFiles {
  /** Makes the request's inputs reachable from every API process: before the task exists, so no worker asks too early. */
  shareInputs(kind: string, stored: unknown): Promise<void>;
  /** Input `name` of the task for a worker's GET, or null. */
  openInput(row: TaskRow, name: string): Promise<{ size: number; path: string; open(): Promise<Readable> } | null>;
  /** Where an upload of output `name` is written while it arrives and is checked (a local file of its own). */
  partFile(row: TaskRow, name: string): string;
  /** Keeps a checked upload (the local file `part`, moved) as output `name` of the row's attempt. */
  keepUpload(row: TaskRow, name: string, part: string): Promise<void>;
  hasUpload(row: TaskRow, name: string): Promise<boolean>;
  dropUpload(row: TaskRow, name: string): Promise<void>;
  /** Moves the attempt's output `name` to `target`; false when it is gone (an earlier run of the job took it: then true if `target` exists). */
  takeUpload(row: TaskRow, name: string | undefined, target: string): Promise<boolean>;
  /** Removes what the task left in shared storage (its inputs and uploads); nothing on one machine. */
  forget(row: TaskRow): Promise<void>;
}

const exists = (path: string) => stat(path).then(() => true, () => false);

/** One machine: the files are where the job wrote them (`uploadPathOf` beside the output path). */
export const localComputeFiles: ComputeFiles = {
  async shareInputs() {},
  async openInput(row, name) {
    const path = taskOf(row.kind).remote.inputPath(JSON.parse(row.request), name);
    const st = path ? statSync(path, { throwIfNoEntry: false }) : undefined;
    if (!path || !st?.isFile()) return null;
    return { size: st.size, path, open: async () => createReadStream(path) };
  },
  partFile: (row, name) => `${uploadPathOf(row, name)}.part-${randomBytes(6).toString('hex')}`,
  keepUpload: (row, name, part) => rename(part, uploadPathOf(row, name)),
  hasUpload: async (row, name) => statSync(uploadPathOf(row, name), { throwIfNoEntry: false })?.isFile() ?? false,
  dropUpload: (row, name) => rm(uploadPathOf(row, name), { force: true }),
  async takeUpload(row, name, target) {
    try {
      await rename(uploadPathOf(row, name), target);
      return true;
    } catch (err) {
      // Already taken by an earlier run of the job (its delivery failed and it is retried).
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return exists(target);
      throw err;
    }
  },
  async forget() {},
};

/** The owner of compute's objects in the media store (no user id starts with `_`). */
const OWNER = '_compute';
/** An input's object: named by the file's path on the host that wrote it (unique per job and input), which every process reads from the row. */
const inputKey = (path: string) => `inputs/${createHash('sha256').update(path).digest('hex').slice(0, 40)}`;
const uploadKey = (row: Pick<TaskRow, 'id' | 'attempts'>, name = 'result') => `tasks/${row.id}/attempt-${row.attempts}/${name}`;

function inputPaths(kind: string, stored: unknown): string[] {
  const task = taskOf(kind);
  return task.inputs.flatMap((name) => task.remote.inputPath(stored, name) ?? []);
}

/** Several API processes: inputs and uploads live in the media store (the S3 bucket) under `_compute/`. */
export function storeComputeFiles(store: MediaStore, opts: { tmpDir: string }): ComputeFiles {
  return {
    // This process may not have the job's folder (another one runs the job): a temporary file of its own.
    partFile: () => join(opts.tmpDir, `compute-upload-${randomBytes(8).toString('hex')}`),
    async shareInputs(kind, stored) {
      for (const path of inputPaths(kind, stored)) await store.put(OWNER, inputKey(path), path, 'application/octet-stream');
    },
    async openInput(row, name) {
      const path = taskOf(row.kind).remote.inputPath(JSON.parse(row.request), name);
      const object = path ? await store.stat(OWNER, inputKey(path)) : null;
      if (!path || !object) return null;
      return {
        size: object.size,
        path,
        async open() {
          const body = await store.read(OWNER, inputKey(path));
          if (!body) throw new Error('the task input disappeared while it was opened');
          return body;
        },
      };
    },
    keepUpload: async (row, name, part) => {
      await store.put(OWNER, uploadKey(row, name), part, 'application/octet-stream', { move: true });
    },
    hasUpload: (row, name) => store.exists(OWNER, uploadKey(row, name)),
    dropUpload: async (row, name) => {
      await store.remove(OWNER, uploadKey(row, name));
    },
    async takeUpload(row, name, target) {
      const body = await store.read(OWNER, uploadKey(row, name));
      if (!body) return exists(target);
      const part = `${target}.part-${randomBytes(6).toString('hex')}`;
      try {
        await pipeline(body, createWriteStream(part));
        await rename(part, target);
      } catch (err) {
        await rm(part, { force: true });
        throw err;
      }
      await store.remove(OWNER, uploadKey(row, name));
      return true;
    },
    async forget(row) {
      for (const path of inputPaths(row.kind, JSON.parse(row.request))) await store.remove(OWNER, inputKey(path));
      await store.removePrefix(OWNER, `tasks/${row.id}/`);
    },
  };
}

/** The task files of a process whose media are in `store`: in it when it is a bucket, else this machine's. */
export function computeFilesFor(store: MediaStore, dataDir: string): ComputeFiles {
  if (store.kind === 'local') return localComputeFiles;
  const tmpDir = join(dataDir, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  return storeComputeFiles(store, { tmpDir });
}
